package search

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/evaluate"
	"github.com/cmdai/cmdai/search/kwstore"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// evalFixture is hybridFixture with a source per command: alpha a man
// page, beta --help, gamma a custom doc.
func evalFixture(t *testing.T) Searcher {
	t.Helper()
	src := map[string]string{"alpha": "man", "beta": "help", "gamma": "custom"}
	var recs []chroma.Record
	for _, r := range hybridFixture().recs {
		r.Metadata["source"] = src[r.Metadata["command"].(string)]
		recs = append(recs, r)
	}
	f := newFake(recs, []float64{0.90, 0.85, 0.80})
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw}
}

func modeRanker(s Searcher, mode Mode) evaluate.Ranker {
	return func(ctx context.Context, request string, k int) ([]evaluate.Ranked, error) {
		hits, err := s.Search(ctx, request, k, mode)
		var out []evaluate.Ranked
		for _, h := range hits {
			out = append(out, evaluate.Ranked{Command: h.Command, Score: h.Score})
		}
		return out, err
	}
}

var evalQueries = []evaluate.EvalQuery{
	{Query: "list directory contents", Command: "alpha"}, // semantic: rank 1
	{Query: "compress archive files", Command: "gamma"},  // semantic: rank 3; keyword: 1
	{Query: "compress data", Command: "beta"},            // semantic: rank 2; keyword: 1
	{Request: "make coffee", Command: "delta"},           // not indexed
	{Query: "compress archive files", Command: "alpha"},  // keyword: not returned
}

// evaluate.Evaluate over the fake index: ranks, per-source figures and the misses
// file, one line per request not first, per mode, in order.
func TestEvaluateMissesAndSources(t *testing.T) {
	s := evalFixture(t)
	ctx := context.Background()
	sources := evaluate.SourcesOf(s.Keywords)
	if sources["alpha"] != "man" || sources["beta"] != "help" || sources["gamma"] != "custom" {
		t.Fatalf("evaluate.SourcesOf = %v", sources)
	}
	sourceOf := func(c string) string { return sources[c] }
	sem, err := evaluate.Evaluate(ctx, "semantic", evalQueries, 10, s.Keywords.Command, sourceOf, modeRanker(s, ModeSemantic))
	if err != nil {
		t.Fatal(err)
	}
	kw, err := evaluate.Evaluate(ctx, "keyword", evalQueries, 10, s.Keywords.Command, sourceOf, modeRanker(s, ModeKeyword))
	if err != nil {
		t.Fatal(err)
	}
	if sem.Queries != 4 || sem.NotIndexed != 1 {
		t.Fatalf("semantic: %d queries, %d not indexed; want 4 and 1", sem.Queries, sem.NotIndexed)
	}
	var ranks []string
	for _, o := range sem.Outcomes {
		ranks = append(ranks, strconv.Itoa(o.Rank))
	}
	if got := strings.Join(ranks, " "); got != "1 3 2 1" {
		t.Errorf("semantic ranks %s, want 1 3 2 1", got)
	}
	// per source: man (alpha twice: ranks 1, 1), custom (gamma: 3), help (beta: 2)
	man, custom, help := sem.BySource["man"], sem.BySource["custom"], sem.BySource["help"]
	if man.Queries != 2 || !near(man.Hit1, 1) || custom.Queries != 1 || !near(custom.MRR10, 1.0/3) || !near(custom.Hit1, 0) || help.Queries != 1 || !near(help.Hit5, 1) || !near(help.MRR10, 0.5) {
		t.Errorf("semantic by source %+v", sem.BySource)
	}

	path := filepath.Join(t.TempDir(), "misses.jsonl")
	if err := evaluate.WriteMisses(path, []evaluate.EvalResult{sem, kw}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var misses []evaluate.Miss
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m evaluate.Miss
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("misses line %q: %v", line, err)
		}
		misses = append(misses, m)
	}
	// semantic misses gamma (3) and beta (2); keyword misses alpha on
	// "compress archive files" (BM25 does not return it: rank null).
	want := []struct {
		mode, cmd string
		rank      int
	}{{"semantic", "gamma", 3}, {"semantic", "beta", 2}, {"keyword", "alpha", 0}}
	if len(misses) != len(want) {
		t.Fatalf("%d misses, want %d:\n%s", len(misses), len(want), data)
	}
	for i, w := range want {
		m := misses[i]
		gotRank := 0
		if m.Rank != nil {
			gotRank = *m.Rank
		}
		if m.Mode != w.mode || m.Command != w.cmd || gotRank != w.rank || len(m.Top) == 0 || m.Top[0].Command == w.cmd {
			t.Errorf("miss %d = %+v (rank %d), want %s %s at %d", i, m, gotRank, w.mode, w.cmd, w.rank)
		}
	}
	if !strings.Contains(string(data), `"rank":null`) {
		t.Errorf("a command not returned must have rank null:\n%s", data)
	}
	if misses[0].Query != "compress archive files" || misses[0].Source != "custom" || len(misses[0].Top) != 3 || misses[0].Top[0].Score == 0 {
		t.Errorf("first miss %+v: want its request, source and the top 3 with scores", misses[0])
	}
}

// evaluate.Compare pairs the same requests: keyword against semantic on the
// fixture wins gamma and beta (RR 1 against 1/3 and 1/2), ties alpha on
// "list directory contents" (both 1) and loses alpha on "compress archive
// files" (the fake's semantic channel puts alpha first for every request,
// BM25 does not return it).
func TestCompareModes(t *testing.T) {
	s := evalFixture(t)
	ctx := context.Background()
	sem, _ := evaluate.Evaluate(ctx, "semantic", evalQueries, 10, s.Keywords.Command, nil, modeRanker(s, ModeSemantic))
	kw, _ := evaluate.Evaluate(ctx, "keyword", evalQueries, 10, s.Keywords.Command, nil, modeRanker(s, ModeKeyword))
	c, err := evaluate.Compare(sem, kw)
	if err != nil {
		t.Fatal(err)
	}
	if c.Baseline != "semantic" || c.Wins != 2 || c.Losses != 1 || c.Ties != 1 {
		t.Errorf("keyword vs semantic %+v, want 2 wins 1 loss 1 tie", c)
	}
	if !near(c.P, 1) || !near(c.Hit1Points, 100*(kw.Hit1-sem.Hit1)) {
		t.Errorf("p %g (want 1: 2*(1+3)/8), hit@1 %+.1f points", c.P, c.Hit1Points)
	}
	if sem.BySource != nil {
		t.Errorf("no sourceOf, no breakdown: %+v", sem.BySource)
	}
	short := sem
	short.Outcomes = sem.Outcomes[:2]
	if _, err := evaluate.Compare(short, kw); err == nil || !strings.Contains(err.Error(), "same file") {
		t.Errorf("different request sets: err %v", err)
	}
}
