package recvec

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
)

// src is a collection of a few records' vectors, counting its reads.
type src struct {
	vecs  map[string][]float32
	reads int
}

func (s *src) Name() string                       { return "cmdai_test" }
func (s *src) Metadata() map[string]any           { return map[string]any{} }
func (s *src) Count(context.Context) (int, error) { return len(s.vecs), nil }
func (s *src) Embeddings(_ context.Context, ids []string) (map[string][]float32, error) {
	s.reads++
	out := map[string][]float32{}
	for _, id := range ids {
		if v, ok := s.vecs[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

func testIndex() *bm25.Index {
	doc := func(id string, kind index.Kind) bm25.Doc {
		return bm25.Doc{ID: id, Command: "tar", Text: id, Meta: index.Metadata{Command: "tar", Kind: kind}}
	}
	return bm25.Build([]bm25.Doc{doc("tar#NAME", index.KindSummary), doc("tar#-x", index.KindOption), doc("tar#-C", index.KindOption), doc("tar#EX1", index.KindExample)})
}

// Every record's vector is read once, kept in a file that a later
// process reads instead, and gives cosines within quantisation of
// float32's; Agrees holds for a distance within tolerance of the kept
// vector's, not for another, nor for a record without one.
func TestOfReadsOnceAndKeepsAFile(t *testing.T) {
	dir := t.TempDir()
	s := &src{vecs: map[string][]float32{
		"tar#NAME": {1, 0, 0}, "tar#-x": {0.6, 0.8, 0}, "tar#-C": {0, 0, 1}, // tar#EX1 has none
	}}
	kw := testIndex()
	v, err := Of(context.Background(), kw, s, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.reads != 1 || v.Len() != 3 {
		t.Fatalf("%d reads, %d vectors: want 1 read, the three records' vectors", s.reads, v.Len())
	}
	q := []float32{1, 0, 0}
	if c, ok := v.Cosine("tar#-x", q); !ok || math.Abs(c-0.6) > 0.01 {
		t.Errorf("cosine of -x %v %v, want 0.6", c, ok)
	}
	if c, ok := v.Cosine("tar#NAME", q); !ok || math.Abs(c-1) > 0.01 {
		t.Errorf("cosine of the summary %v %v, want 1", c, ok)
	}
	if !v.Agrees("tar#-x", q, 0.4+DistanceTolerance/2) || v.Agrees("tar#-x", q, 0.1) || v.Agrees("tar#EX1", q, 0.5) {
		t.Errorf("Agrees: within tolerance %v, off by 0.3 %v, no vector %v; want true, false, false",
			v.Agrees("tar#-x", q, 0.4+DistanceTolerance/2), v.Agrees("tar#-x", q, 0.1), v.Agrees("tar#EX1", q, 0.5))
	}
	if _, ok := v.Cosine("tar#EX1", q); ok {
		t.Errorf("a record without a vector has a cosine")
	}
	if v2, err := Of(context.Background(), kw, s, dir); err != nil || v2 != v || s.reads != 1 {
		t.Errorf("asked again: %v, same %v, %d reads; want the one in memory", err, v2 == v, s.reads)
	}
	// another process: the file, not the collection
	files, _ := filepath.Glob(filepath.Join(dir, "cmdai_test-records-*.vec"))
	if len(files) != 1 {
		t.Fatalf("files %q, want one", files)
	}
	kw2 := testIndex()
	v3, err := Of(context.Background(), kw2, s, dir)
	if err != nil || s.reads != 1 || v3.Len() != 3 {
		t.Fatalf("from the file: %v, %d reads, %d vectors", err, s.reads, v3.Len())
	}
	if c, _ := v3.Cosine("tar#-C", []float32{0, 0, 2}); math.Abs(c-1) > 1e-6 {
		t.Errorf("cosine read back %v, want 1", c)
	}
	// a cut file is read from the collection again
	b, _ := os.ReadFile(files[0])
	if err := os.WriteFile(files[0], b[:len(b)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(context.Background(), testIndex(), s, dir); err != nil || s.reads != 2 {
		t.Errorf("a cut file: %v, %d reads, want a second read", err, s.reads)
	}
}
