package search

import (
	"math"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
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
		hit("ls.1#NAME", "ls", "summary", 0.30, "ls(1) - list directory contents", map[string]any{"description": "list directory contents", "version": "GNU coreutils 9.1"}),
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
	if got[1].Version != "GNU coreutils 9.1" || got[1].Description != "list directory contents" {
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

func TestRenderContextStaysInBudget(t *testing.T) {
	var hits []CommandHit
	for _, name := range []string{"find", "locate", "fd", "stat", "ls", "du"} {
		h := CommandHit{Command: name, Version: name + " 1.0", Description: "does things with files in a directory tree"}
		for i, opt := range []string{"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h"} {
			h.Matches = append(h.Matches, Match{Kind: "option", Option: opt,
				Text: name + "(1) option " + opt + "\nDoes the " + strings.Repeat("very ", i) + "useful thing. And more after the first sentence."})
		}
		h.Matches = append(h.Matches,
			Match{Kind: "example", Text: name + "(1) example\nSearch the tree.\n$ " + name + " -a /tmp"},
			Match{Kind: "example", Text: name + "(1) example\nNo command line here."},
			Match{Kind: "section", Text: "prose is never rendered"})
		hits = append(hits, h)
	}
	full := RenderContext(hits, 100000)
	if !strings.HasPrefix(full, "COMMAND DOCUMENTATION (from vector database):\n- Command: find\n  Version: find 1.0\n") {
		t.Errorf("header and first command:\n%s", full)
	}
	if n := strings.Count(full, "- Command: "); n != 6 {
		t.Errorf("unbounded budget renders all 6 commands, got %d", n)
	}
	first := full[:strings.Index(full, "- Command: locate")]
	if n := strings.Count(first, "\n  -"); n != maxOptions {
		t.Errorf("find renders %d options, want %d:\n%s", n, maxOptions, first)
	}
	if !strings.Contains(first, "  find -a /tmp    # Search the tree.") || strings.Contains(first, "No command line") {
		t.Errorf("example lines:\n%s", first)
	}
	if strings.Contains(full, "prose is never rendered") || strings.Contains(full, "And more after") {
		t.Errorf("prose or second sentences leaked:\n%s", full)
	}
	for _, budget := range []int{40, 120, 300} {
		out := RenderContext(hits, budget)
		if got := estimateTokens(out); got > budget {
			t.Errorf("budget %d: rendered %d tokens:\n%s", budget, got, out)
		}
		if !strings.Contains(out, "- Command: find") {
			t.Errorf("budget %d: the best command is missing:\n%s", budget, out)
		}
		if n := strings.Count(out, "- Command: "); budget < 300 && n == 6 {
			t.Errorf("budget %d still renders every command", budget)
		}
	}
}

func TestFuseByReciprocalRank(t *testing.T) {
	ch := func(cmds ...string) []CommandHit {
		var out []CommandHit
		for _, c := range cmds {
			out = append(out, CommandHit{Command: c, Description: c + " does things", Matches: []Match{{ID: c + "#NAME"}}})
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

// The context block renders what the chunker wrote: an option's flags and
// argument, an example's command line.
func TestRenderContextFromChunks(t *testing.T) {
	page, err := manparse.Parse([]byte(".TH FROB 1\n.SH NAME\nfrob \\- frobnicate files\n.SH OPTIONS\n.TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFILE\\fR\nwrite to FILE. Then more.\n.SH EXAMPLES\nFrobnicate a file:\n.PP\n.nf\nfrob -o out in\n.fi\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := CommandHit{Command: "frob"}
	for _, c := range page.Chunks(manparse.ChunkOptions{}) {
		h.Matches = append(h.Matches, Match{Kind: index.Kind(c.Kind), Option: c.Option, Section: c.Section, Text: c.Text})
	}
	out := RenderContext([]CommandHit{h}, 1000)
	for _, want := range []string{"\n  -o, --output FILE        write to FILE.\n", "\n  frob -o out in    # Frobnicate a file:\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
