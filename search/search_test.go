package search

import (
	"math"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/shown"
)

func hit(id, cmd, kind string, dist float64, text string, md map[string]any) chroma.Hit {
	m := map[string]any{"command": cmd, "kind": kind}
	for k, v := range md {
		m[k] = v
	}
	return chroma.Hit{Record: chroma.Record{ID: id, Document: text, Metadata: m}, Distance: dist}
}

func TestGroupRanksCommandsByBestChunk(t *testing.T) {
	hits := []chroma.Hit{
		hit("ls.1#NAME", "ls", "summary", 0.30, "ls(1) - list directory contents", map[string]any{"description": "list directory contents", "version": "GNU coreutils 9.1", "package": "coreutils", "package_version": "9.1-1"}),
		hit("find.1#TESTS#-mtime", "find", "option", 0.10, "find(1) option -mtime n\nFile's data was last modified n*24 hours ago.", map[string]any{"option": "-mtime", "section": "TESTS"}),
		hit("find.1#NAME", "find", "summary", 0.20, "find(1) - search for files", nil),
		hit("stat.1#NAME", "stat", "summary", 0.35, "stat(1) - display file status", nil),
		hit("x", "", "summary", 0.01, "no command: ignored", nil),
	}
	got := Group(hits, 2)
	if len(got) != 2 {
		t.Fatalf("want 2 commands, got %d: %+v", len(got), got)
	}
	if got[0].Command != "find" || got[1].Command != "ls" {
		t.Fatalf("order: %s, %s; want find, ls", got[0].Command, got[1].Command)
	}
	// best chunk 0.90, plus support from the summary (0.80 + bonus)
	if want := 0.90 + supportWeight*(0.80+summaryBonus); math.Abs(got[0].Score-want) > 1e-9 {
		t.Errorf("find scores %v, want %v", got[0].Score, want)
	}
	if math.Abs(got[0].Matches[0].Score-0.90) > 1e-9 {
		t.Errorf("a match's score is its cosine similarity: %v", got[0].Matches[0].Score)
	}
	if len(got[0].Matches) != 2 || got[0].Matches[0].Option != "-mtime" || got[0].Matches[0].Section != "TESTS" {
		t.Errorf("find's matches, best first: %+v", got[0].Matches)
	}
	// its version is its package's, never the page's source field (an
	// older index's "version")
	if got[1].Version != "9.1-1" || got[1].Package != "coreutils" || got[1].Description != "list directory contents" {
		t.Errorf("ls keeps its metadata: %+v", got[1])
	}
}

func TestGroupPrefersWhatACommandIsFor(t *testing.T) {
	// grep's --count option is nearer to "count lines" than wc's summary,
	// but only by less than the summary bonus
	hits := []chroma.Hit{
		hit("grep.1#OPTIONS#--count", "grep", "option", 0.30, "", nil),
		hit("wc.1#NAME", "wc", "summary", 0.30+summaryBonus/2, "", nil),
	}
	if got := Group(hits, 2); got[0].Command != "wc" {
		t.Errorf("want wc first, got %s (%v) then %s (%v)", got[0].Command, got[0].Score, got[1].Command, got[1].Score)
	}
	// several good chunks beat one slightly better chunk
	hits = []chroma.Hit{
		hit("a#1", "a", "option", 0.20, "", nil),
		hit("b#1", "b", "option", 0.21, "", nil), hit("b#2", "b", "option", 0.22, "", nil), hit("b#3", "b", "option", 0.23, "", nil),
	}
	if got := Group(hits, 2); got[0].Command != "b" {
		t.Errorf("want b first, got %+v", got)
	}
}

func TestFuseByReciprocalRank(t *testing.T) {
	ch := func(cmds ...string) []shown.CommandHit {
		var out []shown.CommandHit
		for _, c := range cmds {
			out = append(out, shown.CommandHit{Command: c, Description: c + " does things", Matches: []shown.Match{{ID: c + "#NAME"}}})
		}
		return out
	}
	sem := ch("grep", "wc", "uniq")
	kw := ch("wc", "nl", "grep")
	got := fuse(5, ranking{sem, 1}, ranking{kw, 1})
	var names []string
	for _, h := range got {
		names = append(names, h.Command)
	}
	// grep 1/61+1/63, wc 1/62+1/61: wc first; then grep; uniq (1/63) and nl (1/62): nl before uniq
	if strings.Join(names, " ") != "wc grep nl uniq" {
		t.Errorf("fused order %v", names)
	}
	if len(got[0].Matches) != 1 || got[0].Description == "" {
		t.Errorf("wc's details and matches (deduplicated): %+v", got[0])
	}
	// a lighter ranking moves less: keyword at 0.3 cannot lift nl over uniq
	got = fuse(5, ranking{sem, 1}, ranking{kw, 0.3})
	if got[0].Command != "grep" || got[len(got)-1].Command != "nl" {
		t.Errorf("weighted: %v", got)
	}
	// a command only named, with no chunk to show, is left out
	got = fuse(5, ranking{sem, 1}, ranking{namedHits([]string{"rsync"}), 1})
	for _, h := range got {
		if h.Command == "rsync" {
			t.Error("named-only command listed without matches")
		}
	}
}

func TestGroupAppliesPriority(t *testing.T) {
	hits := []chroma.Hit{
		hit("deployctl#NAME", "deployctl", "summary", 0.30, "", map[string]any{"priority": "high", "source": "custom"}),
		hit("kubectl#NAME", "kubectl", "summary", 0.27, "", nil),
		hit("helm#NAME", "helm", "summary", 0.29, "", map[string]any{"priority": "low", "source": "custom"}),
	}
	// by similarity alone: kubectl (0.73), helm (0.71), deployctl (0.70)
	got := Group(hits, 3)
	if got[0].Command != "deployctl" || got[1].Command != "kubectl" || got[2].Command != "helm" || got[0].Source != "custom" {
		t.Errorf("order %s %s %s; want the high-priority doc first, the low one last", got[0].Command, got[1].Command, got[2].Command)
	}
}
