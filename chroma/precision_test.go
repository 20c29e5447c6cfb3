package chroma

import (
	"context"
	"math"
	"math/rand"
	"testing"

	v2 "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/amikos-tech/chroma-go/pkg/embeddings"
)

// TestEmbeddingsExact: vectors read back are bit for bit the float32s
// written. An export after an import must give the same bytes, so no
// step on the way (our conversion, chroma-go's JSON, the server) may
// round them.
func TestEmbeddingsExact(t *testing.T) {
	s := startTestServer(t, t.TempDir())
	ctx := context.Background()
	st, err := Connect(ctx, Config{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.CreateCollection(ctx, "cmdai_linux_exact-1", map[string]any{"dims": 384})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	recs := make([]Record, 50)
	for i := range recs {
		v := make([]float32, 384)
		for j := range v {
			v[j] = float32(rng.NormFloat64() * 0.05)
		}
		// some values at the edges of float32's precision
		v[0], v[1], v[2] = math.SmallestNonzeroFloat32*1e6, 1-float32(math.Pow(2, -24)), -0.1
		recs[i] = Record{ID: string(rune('a'+i/26)) + string(rune('a'+i%26)), Document: "d", Metadata: map[string]any{"n": i}, Embedding: v}
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	got, err := c.All(ctx, Include{Embeddings: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{}
	for _, r := range recs {
		want[r.ID] = r.Embedding
	}
	diffs := 0
	maxd := 0.0
	for _, r := range got {
		w := want[r.ID]
		if len(r.Embedding) != len(w) {
			t.Fatalf("%s: %d dims back, wrote %d", r.ID, len(r.Embedding), len(w))
		}
		for j := range w {
			if math.Float32bits(r.Embedding[j]) != math.Float32bits(w[j]) {
				diffs++
				maxd = math.Max(maxd, math.Abs(float64(r.Embedding[j]-w[j])))
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d values came back different (largest difference %g)", diffs, len(recs)*384, maxd)
	}
}

// TestCosineCollectionKeepsItsSpace: a collection made before Space
// changed (cosine) is reopened and updated in its own space, not
// refused or switched.
func TestCosineCollectionKeepsItsSpace(t *testing.T) {
	s := startTestServer(t, t.TempDir())
	ctx := context.Background()
	st, err := Connect(ctx, Config{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const name = "cmdai_linux_old-1"
	if _, err := st.client.GetOrCreateCollection(ctx, name, v2.WithHNSWSpaceCreate(embeddings.COSINE),
		v2.WithEmbeddingFunctionCreate(precomputed{}), v2.WithDisableEFConfigStorage()); err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateCollection(ctx, name, map[string]any{"model": "m"})
	if err != nil {
		t.Fatalf("reopening a cosine collection: %v", err)
	}
	if err := c.SetMetadata(ctx, map[string]any{"model": "m2"}); err != nil {
		t.Fatalf("updating a cosine collection's metadata: %v", err)
	}
	c, err = st.OpenCollection(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if md := c.Metadata(); md["hnsw:space"] != "cosine" || md["model"] != "m2" {
		t.Errorf("metadata after the update: %v", md)
	}
	if err := c.Upsert(ctx, []Record{{ID: "a", Document: "d", Embedding: unit(1, 0, 0, 0)}}); err != nil {
		t.Fatal(err)
	}
	if hits, err := c.Query(ctx, unit(1, 0, 0, 0), 1); err != nil || len(hits) != 1 || hits[0].Distance > 1e-6 {
		t.Errorf("query: %+v %v", hits, err)
	}
}
