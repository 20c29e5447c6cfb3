package embed

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeReranker is fakeModel with the reranker's manifest name.
func fakeReranker(t *testing.T) string {
	t.Helper()
	dir := fakeModel(t, "r")
	if err := WriteManifest(dir, Manifest{Name: RerankerName, Dims: Dims, MaxSeqLength: MaxSeqLength, Pooling: "mean", Normalize: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The reranker is verified like the embedder, with its own errors: a
// missing one is ErrNoReranker (learned mode goes on without it), a
// damaged or foreign one ErrCorruptReranker, each saying how to get a
// good one.
func TestVerifyReranker(t *testing.T) {
	dir := fakeReranker(t)
	if _, err := VerifyReranker(dir, VariantFP32); err != nil {
		t.Fatalf("a good reranker: %v", err)
	}
	if _, err := VerifyReranker(t.TempDir(), ""); !errors.Is(err, ErrNoReranker) || !strings.Contains(err.Error(), "make reranker") {
		t.Errorf("no reranker: %v", err)
	}
	// the embedder's directory is not a reranker, nor the other way round
	if _, err := VerifyReranker(fakeModel(t, "e"), ""); !errors.Is(err, ErrCorruptReranker) || !strings.Contains(err.Error(), `"all-MiniLM-L6-v2"`) {
		t.Errorf("the embedder as reranker: %v", err)
	}
	if _, err := Verify(dir, ""); !errors.Is(err, ErrCorruptModel) {
		t.Errorf("the reranker as embedder: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("swapped"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := VerifyReranker(dir, VariantFP32)
	if !errors.Is(err, ErrCorruptReranker) || !strings.Contains(err.Error(), "model.onnx") {
		t.Errorf("a swapped file: %v", err)
	}
	if _, err := OpenReranker(t.Context(), Options{Dir: dir, Backend: BackendGo}); !errors.Is(err, ErrCorruptReranker) {
		t.Errorf("OpenReranker of a swapped file: %v", err)
	}
}
