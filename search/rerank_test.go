package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/ranker"
)

// wordReranker stands in for the tuned model: a text mentioning word
// points one way, any other text the other; err makes every call fail.
type wordReranker struct {
	word string
	err  error
}

func (w wordReranker) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if w.err != nil {
		return nil, w.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{0, 1}
		if strings.Contains(t, w.word) {
			out[i] = []float32{1, 0}
		}
	}
	return out, nil
}
func (w wordReranker) Info() embed.Info {
	return embed.Info{Model: embed.RerankerName, SHA256: "fake-" + w.word}
}
func (wordReranker) Close() error { return nil }

// With a reranker, every candidate gets its two features from the
// reranker's cosine between the request and the command's description;
// without one, learned mode's features are today's.
func TestRerankFeatures(t *testing.T) {
	recs := []chroma.Record{
		rec("mv#NAME", "mv", "summary", "mv - move files", map[string]any{"description": "move files"}),
		rec("rename.ul#NAME", "rename.ul", "summary", "rename.ul - rename files", map[string]any{"description": "rename files"}),
		rec("cp#NAME", "cp", "summary", "cp - copy files", map[string]any{"description": "copy files"}),
	}
	f := newFake(recs, []float64{0.9, 0.8, 0.1})
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s := Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw}
	plain, err := s.Candidates(context.Background(), "move my files", LearnedPool)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plain {
		if _, ok := c.Features[ranker.RerankGap]; ok {
			t.Errorf("%s has %s without a reranker", c.Hit.Command, ranker.RerankGap)
		}
	}
	s.Reranker = wordReranker{word: "move"}
	cands, err := s.Candidates(context.Background(), "move my files", LearnedPool)
	if err != nil {
		t.Fatal(err)
	}
	feats := map[string]map[string]float64{}
	for _, c := range cands {
		feats[c.Hit.Command] = c.Features
	}
	if g, r := feats["mv"][ranker.RerankGap], feats["mv"][ranker.RerankRank]; g != 0 || r != 1.0/(ranker.RRFK+1) {
		t.Errorf("mv, whose description the reranker matches: gap %v, rr %v; want 0, 1/11", g, r)
	}
	if g := feats["cp"][ranker.RerankGap]; g != -1 {
		t.Errorf("cp: gap %v, want -1 (cosine 0 against the best's 1)", g)
	}

	if w := s.learnedWeights(); w[ranker.RerankGap] == 0 || w[ranker.RerankGap] != ranker.WithReranker[ranker.RerankGap] {
		t.Errorf("with a reranker learned mode scores by ranker.WithReranker, got %v", w)
	}
	s.Learned = ranker.Weights{"rr_semantic": 1}
	if w := s.learnedWeights(); len(w) != 1 {
		t.Errorf("weights the caller gives win: %v", w)
	}
	s.Learned, s.Reranker = nil, nil
	if w := s.learnedWeights(); w[ranker.RerankGap] != 0 || w["rr_semantic"] != ranker.Default["rr_semantic"] {
		t.Errorf("without a reranker learned mode is today's: %v", w)
	}

	s.Reranker = wordReranker{err: errors.New("onnx went away")}
	if _, err := s.Search(context.Background(), "move my files", 3, ModeLearned); err == nil || !strings.Contains(err.Error(), "reranker") {
		t.Errorf("a failing reranker: %v, want an error naming it", err)
	}
}
