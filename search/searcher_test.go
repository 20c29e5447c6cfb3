package search

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/shown"
)

// fakeCollection is a Collection held in memory for the ranking's unit
// tests: Query answers with the hits it was given, in their order, so a
// test decides what the semantic channel sees; All reads records.
type fakeCollection struct {
	recs    []chroma.Record
	nearest []chroma.Hit
	asked   int // n of the last Query
}

func (f *fakeCollection) Name() string                       { return "fake" }
func (f *fakeCollection) Metadata() map[string]any           { return nil }
func (f *fakeCollection) Count(context.Context) (int, error) { return len(f.recs), nil }

func (f *fakeCollection) Query(_ context.Context, _ []float32, n int) ([]chroma.Hit, error) {
	f.asked = n
	return f.nearest[:min(n, len(f.nearest))], nil
}

func (f *fakeCollection) All(_ context.Context, inc chroma.Include) ([]chroma.Record, error) {
	var out []chroma.Record
	for _, r := range f.recs {
		keep := true
		for k, v := range inc.Where {
			if s, _ := r.Metadata[k].(string); s != v {
				keep = false
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out, nil
}

// fakeEmbedder gives every text the same vector: the fake collection's
// Query does not look at it.
type fakeEmbedder struct{}

func (fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (fakeEmbedder) Info() embed.Info { return embed.Info{} }
func (fakeEmbedder) Close() error     { return nil }

func rec(id, cmd, kind, text string, md map[string]any) chroma.Record {
	return hit(id, cmd, kind, 0, text, md).Record
}

// newFake holds recs, with the semantic channel answering with them at the
// given similarities, in that order.
func newFake(recs []chroma.Record, sims []float64) *fakeCollection {
	f := &fakeCollection{recs: recs}
	for i, s := range sims {
		f.nearest = append(f.nearest, chroma.Hit{Record: recs[i], Distance: 1 - s})
	}
	return f
}

func commands(hits []shown.CommandHit) string {
	var names []string
	for _, h := range hits {
		names = append(names, h.Command)
	}
	return strings.Join(names, " ")
}

// In semantic mode the nearest chunk alone does not decide: a summary's
// bonus lifts wc over grep's nearer option, and three good chunks of b
// beat a's one slightly better chunk.
func TestSearchSemanticSummaryAndSupportDecide(t *testing.T) {
	recs := []chroma.Record{
		rec("grep#--count", "grep", "option", "grep option --count", nil),
		rec("a#1", "a", "option", "a option", nil),
		rec("wc#NAME", "wc", "summary", "wc - print newline, word and byte counts", nil),
		rec("b#1", "b", "option", "b option one", nil),
		rec("b#2", "b", "option", "b option two", nil),
		rec("b#3", "b", "option", "b option three", nil),
	}
	f := newFake(recs, []float64{0.72, 0.70, 0.70, 0.69, 0.68, 0.68})
	s := Searcher{Coll: f, Embedder: fakeEmbedder{}}
	got, err := s.Search(context.Background(), "count lines", 3, ModeSemantic)
	if err != nil {
		t.Fatal(err)
	}
	// wc 0.70+0.08; b 0.69+0.05x(0.68+0.68)=0.758; grep 0.72; a 0.70
	if c := commands(got); c != "wc b grep" {
		t.Errorf("semantic order %q, want \"wc b grep\" (scores %+v)", c, got)
	}
	if f.asked != minChunks {
		t.Errorf("asked Chroma for %d chunks, want %d", f.asked, minChunks)
	}
}

// hybridFixture: the semantic channel puts alpha, beta, gamma in that
// order; BM25 finds gamma best and beta second for "compress archive
// files", and alpha not at all.
func hybridFixture() *fakeCollection {
	recs := []chroma.Record{
		rec("alpha#NAME", "alpha", "summary", "alpha - list directory contents", nil),
		rec("beta#NAME", "beta", "summary", "beta - compress data", nil),
		rec("gamma#NAME", "gamma", "summary", "gamma - compress archive files, compress an archive", nil),
	}
	return newFake(recs, []float64{0.90, 0.85, 0.80})
}

func TestSearchHybridFusesTheChannels(t *testing.T) {
	f := hybridFixture()
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s := Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw}
	ctx := context.Background()
	const req = "compress archive files"
	kwHits, err := s.Search(ctx, req, 5, ModeKeyword)
	if err != nil {
		t.Fatal(err)
	}
	if c := commands(kwHits); c != "gamma beta" {
		t.Fatalf("keyword order %q, want \"gamma beta\"", c)
	}
	if kwHits[0].Score != kwHits[0].Matches[0].BM25 || kwHits[0].Score <= kwHits[1].Score {
		t.Errorf("keyword mode scores commands by BM25: %+v", kwHits)
	}
	got, err := s.Search(ctx, req, 5, ModeHybrid)
	if err != nil {
		t.Fatal(err)
	}
	// alpha 1/61 = .0164; beta 1/62 + .3/62 = .0210; gamma 1/63 + .3/61 = .0208
	if c := commands(got); c != "beta gamma alpha" {
		t.Errorf("hybrid order %q, want \"beta gamma alpha\" (%+v)", c, got)
	}
	if want := 1.0/62 + keywordWeight/62; got[0].Score < want-1e-12 || got[0].Score > want+1e-12 {
		t.Errorf("beta's fused score %v, want %v", got[0].Score, want)
	}
	// The keyword side's chunks come from the keyword index (Collection
	// has no Get): their text and kind are the records'.
	if gamma := &kwHits[0].Matches[0]; gamma.ID != "gamma#NAME" || gamma.Text != f.recs[2].Document || gamma.Kind != "summary" || gamma.BM25 == 0 {
		t.Errorf("gamma's keyword match %+v, want its text, kind and BM25 from the keyword index", gamma)
	}
}

// A custom doc's priority moves it in the keyword ranking as in the
// semantic one (TestGroupAppliesPriority): high scales its BM25 by 1.2.
func TestSearchKeywordAppliesPriority(t *testing.T) {
	ranked := func(priority string) string {
		md := map[string]any{"source": "custom"}
		if priority != "" {
			md["priority"] = priority
		}
		f := &fakeCollection{recs: []chroma.Record{
			rec("kubectl#NAME", "kubectl", "summary", "kubectl - deploy the application to a cluster", nil),
			rec("deployctl#NAME", "deployctl", "summary", "deployctl - deploy the application to a cluster of machines today", md),
		}}
		kw, err := kwstore.Build(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Searcher{Coll: f, Keywords: kw}.Search(context.Background(), "deploy application cluster", 5, ModeKeyword)
		if err != nil {
			t.Fatal(err)
		}
		return commands(got)
	}
	if got := ranked(""); got != "kubectl deployctl" {
		t.Fatalf("without priority: %q, want the shorter page first", got)
	}
	if got := ranked("high"); got != "deployctl kubectl" {
		t.Errorf("with priority high: %q, want the custom doc first", got)
	}
}

// bareNearest is a fake collection that can also answer with ids and
// distances alone, as chroma.Collection.QueryNearest does, and give its
// records' vectors: for fakeEmbedder's vector, each one's is at the
// distance its hit says (sealed says which the reader is given; moved
// shifts the distance QueryNearest answers for an id, as a vector
// replaced on the server would).
type bareNearest struct {
	*fakeCollection
	bare, full int
	moved      map[string]float64
	refused    []string
}

func (b *bareNearest) QueryNearest(ctx context.Context, vec []float32, n int) ([]chroma.Hit, error) {
	b.bare++
	hits, err := b.fakeCollection.Query(ctx, vec, n)
	out := make([]chroma.Hit, len(hits))
	for i, h := range hits {
		out[i] = chroma.Hit{Record: chroma.Record{ID: h.ID}, Distance: h.Distance + b.moved[h.ID]}
	}
	return out, err
}

func (b *bareNearest) Embeddings(_ context.Context, ids []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for _, h := range b.nearest {
		c := 1 - h.Distance
		out[h.ID] = []float32{float32(c), float32(math.Sqrt(1 - c*c))}
	}
	return out, nil
}

func (b *bareNearest) Refuse(id string) { b.refused = append(b.refused, id) }

func (b *bareNearest) Query(ctx context.Context, vec []float32, n int) ([]chroma.Hit, error) {
	b.full++
	return b.fakeCollection.Query(ctx, vec, n)
}

// With a keyword index that holds the chunks and the records' vectors
// kept beside it, the semantic channel asks for ids and distances only
// and answers exactly as the full query does; a chunk whose distance is
// not its checked vector's is dropped and refused; an id the keyword
// index does not know sends it the full way.
func TestSemanticReadsChunksFromTheKeywordIndex(t *testing.T) {
	ctx := context.Background()
	f := hybridFixture()
	kw, err := kwstore.Build(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Searcher{Coll: f, Embedder: fakeEmbedder{}}.Search(ctx, "compress archive files", 5, ModeSemantic)
	if err != nil {
		t.Fatal(err)
	}
	b := &bareNearest{fakeCollection: f}
	dir := t.TempDir()
	got, err := Searcher{Coll: b, Embedder: fakeEmbedder{}, Keywords: kw, KeywordDir: dir}.Search(ctx, "compress archive files", 5, ModeSemantic)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || b.bare != 1 || b.full != 0 {
		t.Errorf("from the keyword index (%d bare, %d full queries):\n%+v\nwant\n%+v", b.bare, b.full, got, want)
	}
	// alpha's vector replaced on the server so that it ranks first by far:
	// its distance is not the one of the vector checked, and it is dropped
	b.moved = map[string]float64{"alpha#NAME": -0.09}
	got, err = Searcher{Coll: b, Embedder: fakeEmbedder{}, Keywords: kw, KeywordDir: dir}.Search(ctx, "compress archive files", 5, ModeSemantic)
	if err != nil || commands(got) != "beta gamma" || !reflect.DeepEqual(b.refused, []string{"alpha#NAME"}) {
		t.Errorf("a vector replaced on the server: %q %v, refused %v; want beta gamma, alpha refused", commands(got), err, b.refused)
	}
	b.moved = nil
	// a chunk written after the keyword index was saved
	f.recs = append(f.recs, rec("delta#NAME", "delta", "summary", "delta(1) - compress archive files", nil))
	f.nearest = append([]chroma.Hit{{Record: f.recs[len(f.recs)-1], Distance: 0.1}}, f.nearest...)
	got, err = Searcher{Coll: b, Embedder: fakeEmbedder{}, Keywords: kw, KeywordDir: dir}.Search(ctx, "compress archive files", 5, ModeSemantic)
	if err != nil || len(got) == 0 || got[0].Command != "delta" || b.full != 1 {
		t.Errorf("an id the keyword index lacks: %d full queries, %+v %v; want the full query's answer, delta first", b.full, got, err)
	}
}
