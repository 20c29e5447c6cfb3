package search

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/ranker"
	"github.com/cmdai/cmdai/search/shown"
)

// learnedSearch runs learned mode over recs (semantic similarities sims,
// in order) with weights w.
func learnedSearch(t *testing.T, recs []chroma.Record, sims []float64, request string, w ranker.Weights) []shown.CommandHit {
	t.Helper()
	return searchIn(t, recs, sims, request, Searcher{Learned: w}, ModeLearned)
}

// fusedAsLearned is ranker.DefaultFused's ranking written as learned weights.
var fusedAsLearned = ranker.Weights{"rr_semantic": 1, "rr_summary": 0.3, "rr_page": 0.3, "rr_named": 0.2, "subcommand": -0.03}

// Fused mode is one setting of learned mode's weights: the same order
// for the commands fused mode returns (learned mode may add commands
// only other channels found, at score 0, after them).
func TestLearnedGeneralisesFused(t *testing.T) {
	recs := []chroma.Record{
		rec("grep#--count", "grep", "option", "--count: print a count of matching lines", nil),
		rec("wc#NAME", "wc", "summary", "wc - print newline, word and byte counts; count lines", nil),
		rec("grep#NAME", "grep", "summary", "grep - search text for patterns", nil),
		rec("nl#NAME", "nl", "summary", "nl - number lines of files", nil),
		rec("tar#--gzip", "tar", "option", "--gzip: compress the archive", nil),
	}
	sims := []float64{0.90, 0.60, 0.30, 0.20, 0.10}
	for _, req := range []string{"count lines", "number the lines of a file", "use tar to compress"} {
		fused := commands(fusedSearch(t, recs, sims, req, nil))
		learned := commands(learnedSearch(t, recs, sims, req, fusedAsLearned))
		if !strings.HasPrefix(learned, fused) {
			t.Errorf("%q: learned %q, fused %q: want fused's order first", req, learned, fused)
		}
	}
}

// The refs feature counts the other pages that refer to a command: with
// weight on it, the command pages point to (mv) beats a rarer sibling
// whose chunk is nearer (rename.ul); without, it does not.
func TestLearnedRefsPrior(t *testing.T) {
	refs := func(names string) map[string]any { return map[string]any{"references": names, "source": "man"} }
	recs := []chroma.Record{
		rec("rename.ul#NAME", "rename.ul", "summary", "rename.ul - rename files", refs("mv")),
		rec("mv#NAME", "mv", "summary", "mv - move (rename) files", refs("cp,rename.ul,mv")),
		rec("cp#NAME", "cp", "summary", "cp - copy files", refs("mv,ln")),
		rec("ln#NAME", "ln", "summary", "ln - make links", refs("cp,MV")),
	}
	sims := []float64{0.90, 0.85, 0.20, 0.10}
	if c := commands(learnedSearch(t, recs, sims, "rename files", ranker.Weights{"rr_semantic": 1})); !strings.HasPrefix(c, "rename.ul ") {
		t.Errorf("semantic rank alone: %q, want rename.ul first (else the test shows nothing)", c)
	}
	if c := commands(learnedSearch(t, recs, sims, "rename files", ranker.Weights{"rr_semantic": 1, "refs": 1})); !strings.HasPrefix(c, "mv ") {
		t.Errorf("with refs: %q, want mv first", c)
	}

	f := newFake(recs, sims)
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw}.Candidates(context.Background(), "rename files", LearnedPool)
	if err != nil {
		t.Fatal(err)
	}
	feats := map[string]map[string]float64{}
	for _, c := range cands {
		feats[c.Hit.Command] = c.Features
	}
	// mv: referred to by rename.ul, cp and ln (its own page's mention
	// does not count; an upper-case name still resolves)
	for cmd, n := range map[string]int{"mv": 3, "rename.ul": 1, "cp": 2, "ln": 1} {
		if got, want := feats[cmd]["refs"], math.Log1p(float64(n))/5; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: refs %v, want ln(1+%d)/5", cmd, got, n)
		}
	}
	if feats["rename.ul"]["name_dot"] != 1 || feats["mv"]["name_dot"] != 0 {
		t.Errorf("name_dot: rename.ul %v, mv %v", feats["rename.ul"]["name_dot"], feats["mv"]["name_dot"])
	}
	if feats["rename.ul"]["rr_semantic"] != 1.0/11 || feats["rename.ul"]["sem_gap"] != 0 || feats["mv"]["sem_gap"] >= 0 {
		t.Errorf("semantic features: rename.ul %v, mv %v", feats["rename.ul"], feats["mv"])
	}
}

// Learned mode needs the keyword index, and says so.
func TestLearnedNeedsKeywords(t *testing.T) {
	if m, err := ParseMode("learned"); err != nil || m != ModeLearned {
		t.Fatalf("ParseMode(learned) = %q, %v", m, err)
	}
	_, err := Searcher{Coll: hybridFixture(), Embedder: fakeEmbedder{}}.Search(context.Background(), "compress", 5, ModeLearned)
	if err == nil || !strings.Contains(err.Error(), "no keyword index for mode learned") {
		t.Errorf("learned without a keyword index: %v, want it named", err)
	}
}
