package builder

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
)

// TestStalenessSummaryOfAPartialIndex: an index of two commands on a
// machine with many more installed counts them as not in the index, and
// its summary never puts a count over the smaller number indexed.
func TestStalenessSummaryOfAPartialIndex(t *testing.T) {
	recs := []chroma.Record{
		{ID: "grep.1#NAME", Metadata: map[string]any{"command": "grep", "fingerprint": "g1", "kind": "summary"}},
		{ID: "ls.1#NAME", Metadata: map[string]any{"command": "ls", "fingerprint": "l1", "kind": "summary"}},
	}
	installed := []pages.Installed{{Command: "grep", Fingerprint: "g1"}, {Command: "ls", Fingerprint: "l2"}}
	for i := 0; i < 40; i++ {
		installed = append(installed, pages.Installed{Command: fmt.Sprintf("tool%d", i), Fingerprint: "t"})
	}
	st := staleness(recs, installed, nil, false)
	if st.Indexed != 2 || st.Changed != 1 || st.Added != 40 || st.Removed != 0 || st.Stale != 41 {
		t.Errorf("staleness %+v", st)
	}
	want := "stale: 2 commands indexed: 1 changed, 0 removed since; 40 installed commands not in the index"
	if got := st.Summary(); got != want || strings.Contains(got, " of 2") {
		t.Errorf("summary %q, want %q", got, want)
	}
	fresh := staleness(recs[:1], installed[:1], nil, false)
	if got := fresh.Summary(); got != "up to date: 1 commands indexed, none changed, new or removed" {
		t.Errorf("up-to-date summary %q", got)
	}
}

// TestStalenessJudgesEachSource: a command read from its --help is judged
// by its executable's fingerprint among the commands without a man page:
// current, changed, changed once it has a man page (the build reads that
// instead), removed only once uninstalled; a command without a man page
// the index does not hold is never new.
func TestStalenessJudgesEachSource(t *testing.T) {
	help := func(cmd, fp string) chroma.Record {
		return chroma.Record{ID: cmd + "#NAME", Metadata: map[string]any{"command": cmd, "fingerprint": fp, "kind": "summary", "source": "help"}}
	}
	recs := []chroma.Record{help("same", "s1"), help("upgraded", "u1"), help("paged", "p1"), help("gone", "g1"),
		{ID: "grep.1#NAME", Metadata: map[string]any{"command": "grep", "fingerprint": "g1", "kind": "summary", "source": "man"}}}
	installed := []pages.Installed{
		{Command: "same", Fingerprint: "s1", NoManPage: true},
		{Command: "upgraded", Fingerprint: "u2", NoManPage: true},
		{Command: "paged", Fingerprint: "p2"},
		{Command: "grep", Fingerprint: "g1"},
		{Command: "unindexed", Fingerprint: "x", NoManPage: true},
	}
	st := staleness(recs, installed, nil, true)
	if st.Indexed != 5 || st.Changed != 2 || st.Removed != 1 || st.Added != 0 || strings.Join(st.Names, " ") != "-gone ~paged ~upgraded" {
		t.Errorf("staleness %+v", st)
	}
}
