package search

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/adapter"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/ranker"
)

// vecCollection is a fakeCollection that remembers the vectors it was
// asked with.
type vecCollection struct {
	*fakeCollection
	asked [][]float32
}

func (v *vecCollection) Query(ctx context.Context, vec []float32, n int) ([]chroma.Hit, error) {
	v.asked = append(v.asked, vec)
	return v.fakeCollection.Query(ctx, vec, n)
}

func swapAdapter(t *testing.T) *adapter.Adapter {
	t.Helper()
	a, err := adapter.New(2, []float32{0, 1, 1, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAdapterFeatures: the adapter the reranker carries gives every
// candidate adesc_gap and rr_adesc from the embedder's description
// cosines of the ADAPTED request vector, learned mode scores with
// ranker.WithAdapter, and Chroma is still asked with the raw vector.
// The embedder (wordReranker "move") gives "move my files" and mv's
// description (1, 0), cp's (0, 1); the swap adapter turns the request
// into (0, 1), so by the adapter cp comes first and mv last, the other
// way round from desc_gap.
func TestAdapterFeatures(t *testing.T) {
	recs := []chroma.Record{
		rec("mv#NAME", "mv", "summary", "mv - move files", map[string]any{"description": "move files"}),
		rec("cp#NAME", "cp", "summary", "cp - copy files", map[string]any{"description": "copy files"}),
	}
	f := newFake(recs, []float64{0.9, 0.1})
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*adapter.Adapter{nil, swapAdapter(t)} {
		v := &vecCollection{fakeCollection: f}
		s := Searcher{Coll: v, Embedder: wordReranker{word: "move"}, Keywords: kw, Reranker: adapter.Attach(wordReranker{word: "copy"}, a)}
		cands, err := s.Candidates(context.Background(), "move my files", LearnedPool)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range v.asked {
			if !reflect.DeepEqual(got, []float32{1, 0}) {
				t.Errorf("adapter %v: Chroma asked with %v, want the raw vector (1, 0)", a != nil, got)
			}
		}
		feats := map[string]map[string]float64{}
		for _, c := range cands {
			feats[c.Hit.Command] = c.Features
		}
		if a == nil {
			if _, ok := feats["mv"][ranker.AdaptGap]; ok || reflect.ValueOf(s.learnedWeights()).Pointer() != reflect.ValueOf(ranker.WithReranker).Pointer() {
				t.Errorf("no adapter: features %v, want none of the adapter's and WithReranker's weights", feats["mv"])
			}
			continue
		}
		if feats["cp"][ranker.AdaptGap] != 0 || feats["mv"][ranker.AdaptGap] != -1 || feats["cp"][ranker.AdaptRank] <= feats["mv"][ranker.AdaptRank] {
			t.Errorf("adapter features: cp %v, mv %v: want cp first (gap 0), mv at -1", feats["cp"], feats["mv"])
		}
		if feats["mv"][ranker.DescGap] != 0 || feats["cp"][ranker.DescGap] != -1 {
			t.Errorf("desc_gap must stay the raw vector's: mv %v, cp %v", feats["mv"][ranker.DescGap], feats["cp"][ranker.DescGap])
		}
		if reflect.ValueOf(s.learnedWeights()).Pointer() != reflect.ValueOf(ranker.WithAdapter).Pointer() {
			t.Error("with the adapter, learned mode must score with ranker.WithAdapter")
		}
	}
}

func TestAdapterOfAnotherWidthFailsTheSearch(t *testing.T) {
	three, err := adapter.New(3, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := hybridFixture()
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s := Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw, Reranker: adapter.Attach(wordReranker{word: "x"}, three)}
	_, err = s.Search(context.Background(), "compress", 5, ModeLearned)
	if err == nil || !strings.Contains(err.Error(), "width 3") {
		t.Errorf("3-wide adapter on 2-wide vectors: err %v", err)
	}
}
