package search

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/ranker"
	"github.com/cmdai/cmdai/search/shown"
)

// fusedSearch runs fused mode over recs, whose semantic similarities are
// sims (in order), with weights w (nil: ranker.DefaultFused).
func fusedSearch(t *testing.T, recs []chroma.Record, sims []float64, request string, w *ranker.Fused) []shown.CommandHit {
	t.Helper()
	return searchIn(t, recs, sims, request, Searcher{Weights: w}, ModeFused)
}

// searchIn runs s (its collection, embedder and keyword index set here)
// in mode over recs, whose semantic similarities are sims, in order.
func searchIn(t *testing.T, recs []chroma.Record, sims []float64, request string, s Searcher, mode Mode) []shown.CommandHit {
	t.Helper()
	f := newFake(recs, sims)
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s.Coll, s.Embedder, s.Keywords = f, fakeEmbedder{}, kw
	got, err := s.Search(context.Background(), request, 5, mode)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// without returns ranker.DefaultFused with one change.
func without(change func(*ranker.Fused)) *ranker.Fused {
	w := ranker.DefaultFused
	change(&w)
	return &w
}

// The BM25 channel over NAME/summary chunks lifts the command whose
// summary says what the request asks over one whose option is nearer in
// embedding: "count lines" is wc, not grep --count.
func TestFusedSummaryChannel(t *testing.T) {
	recs := []chroma.Record{
		rec("grep#--count", "grep", "option", "--count: print a count of matching lines", nil),
		rec("wc#NAME", "wc", "summary", "wc - print newline, word and byte counts; count lines", nil),
		rec("grep#NAME", "grep", "summary", "grep - search text for patterns", nil),
	}
	sims := []float64{0.90, 0.60, 0.30}
	if c := commands(fusedSearch(t, recs, sims, "count lines", nil)); !strings.HasPrefix(c, "wc ") {
		t.Errorf("fused: %q, want wc first", c)
	}
	if c := commands(fusedSearch(t, recs, sims, "count lines", without(func(w *ranker.Fused) { w.Summary = 0 }))); !strings.HasPrefix(c, "grep ") {
		t.Errorf("without the summary channel: %q, want grep first (else the test shows nothing)", c)
	}
}

// The whole-page channel finds a command whose page holds the request's
// words in different chunks, which no chunk-level ranking sees together.
func TestFusedPageChannel(t *testing.T) {
	recs := []chroma.Record{
		rec("alpha#DESCRIPTION", "alpha", "section", "alpha walks a tree of directories", nil),
		rec("tar#DESCRIPTION", "tar", "section", "tar stores many files in one archive", nil),
		rec("tar#--gzip", "tar", "option", "--gzip: filter it through gzip to compress it", nil),
	}
	sims := []float64{0.90, 0.80, 0.50}
	if c := commands(fusedSearch(t, recs, sims, "compress an archive", nil)); !strings.HasPrefix(c, "tar ") {
		t.Errorf("fused: %q, want tar first", c)
	}
	if c := commands(fusedSearch(t, recs, sims, "compress an archive", without(func(w *ranker.Fused) { w.Page = 0 }))); !strings.HasPrefix(c, "alpha ") {
		t.Errorf("without the page channel: %q, want alpha first (else the test shows nothing)", c)
	}
}

// A command the request names outright moves up, though neither its
// embedding nor its words are nearest.
func TestFusedNamedChannel(t *testing.T) {
	recs := []chroma.Record{
		rec("cp#NAME", "cp", "section", "duplicate things", nil),
		rec("rsync#NAME", "rsync", "section", "fast remote synchronisation", nil),
	}
	sims := []float64{0.90, 0.80}
	const req = "use rsync to copy the photos"
	if c := commands(fusedSearch(t, recs, sims, req, nil)); c != "rsync cp" {
		t.Errorf("fused: %q, want \"rsync cp\"", c)
	}
	if c := commands(fusedSearch(t, recs, sims, req, without(func(w *ranker.Fused) { w.Named = 0 }))); c != "cp rsync" {
		t.Errorf("without the named channel: %q, want \"cp rsync\" (else the test shows nothing)", c)
	}
}

// The same request gets the same answer every time (the channels are
// fused in a fixed order), with each command's matches and details.
func TestFusedIsDeterministic(t *testing.T) {
	recs := []chroma.Record{
		rec("wc#NAME", "wc", "summary", "wc - count lines", map[string]any{"description": "print counts"}),
		rec("wc#-l", "wc", "option", "-l: count lines", nil),
		rec("grep#-c", "grep", "option", "-c: count matching lines", nil),
		rec("grep#EXAMPLE", "grep", "example", "grep -c x file: count lines holding x", nil),
	}
	sims := []float64{0.7, 0.6, 0.5, 0.4}
	first := fusedSearch(t, recs, sims, "count lines", without(func(w *ranker.Fused) { w.Option, w.Example, w.Keyword = 0.1, 0.1, 0.1 }))
	for range 20 {
		again := fusedSearch(t, recs, sims, "count lines", without(func(w *ranker.Fused) { w.Option, w.Example, w.Keyword = 0.1, 0.1, 0.1 }))
		if !reflect.DeepEqual(again, first) {
			t.Fatalf("answers differ:\n%+v\n%+v", first, again)
		}
	}
	if first[0].Command != "wc" || first[0].Description != "print counts" || len(first[0].Matches) != 2 {
		t.Errorf("wc's hit %+v, want its description and both its chunks", first[0])
	}
}

// Fused mode needs the keyword index, and says so.
func TestFusedNeedsKeywords(t *testing.T) {
	if m, err := ParseMode("fused"); err != nil || m != ModeFused {
		t.Fatalf("ParseMode(fused) = %q, %v", m, err)
	}
	f := hybridFixture()
	_, err := Searcher{Coll: f, Embedder: fakeEmbedder{}}.Search(context.Background(), "compress", 5, ModeFused)
	if err == nil || !strings.Contains(err.Error(), "no keyword index for mode fused") {
		t.Errorf("fused without a keyword index: %v, want it named", err)
	}
}

// --fused-weights: fields left out keep the defaults; unknown fields,
// negative weights and bad JSON are refused with the fields named.
func TestParseFusedWeights(t *testing.T) {
	w, err := ParseFusedWeights(`{"page": 0.5, "rrf_k": 20}`)
	want := ranker.DefaultFused
	want.Page, want.RRFK = 0.5, 20
	if err != nil || w != want {
		t.Errorf("ParseFusedWeights = %+v, %v; want %+v", w, err, want)
	}
	for _, bad := range []string{`{"pages": 1}`, `{"named": -1}`, `not json`, `{"page": "x"}`} {
		if _, err := ParseFusedWeights(bad); err == nil || !strings.Contains(err.Error(), "fused weights") {
			t.Errorf("ParseFusedWeights(%s) = %v, want an error", bad, err)
		}
	}
}

// A subcommand's page loses Subcommand from its fused score: git-mv(1),
// nearer by a little, no longer beats mv(1), while the answer for a
// request only git-mv matches is still git-mv.
func TestFusedSubcommandPenalty(t *testing.T) {
	sub := map[string]any{"parent_command": "git"}
	recs := []chroma.Record{
		rec("git-mv#NAME", "git-mv", "summary", "git-mv - Move or rename a file, a directory, or a symlink", sub),
		rec("mv#NAME", "mv", "summary", "mv - move (rename) files", nil),
		rec("ls#NAME", "ls", "summary", "ls - list directory contents", nil),
	}
	sims := []float64{0.80, 0.79, 0.10}
	first := func(w ranker.Fused) (string, string) {
		got := fusedSearch(t, recs, sims, "rename a file", &w)
		return got[0].Command, got[0].Parent
	}
	w := ranker.DefaultFused
	w.Subcommand = 0
	if c, p := first(w); c != "git-mv" || p != "git" {
		t.Fatalf("without the penalty: %s (parent %q), want git-mv of git (else the test shows nothing)", c, p)
	}
	w.Subcommand = 0.05
	if c, _ := first(w); c != "mv" {
		t.Errorf("with the penalty: %s first, want mv", c)
	}
	if got := fusedSearch(t, recs[:1], sims[:1], "rename a file", &w); len(got) != 1 || got[0].Command != "git-mv" {
		t.Errorf("alone, git-mv is still the answer: %+v", got)
	}
	if _, err := ParseFusedWeights(`{"subcommand": -1}`); err == nil {
		t.Error("a negative subcommand penalty was accepted")
	}
}
