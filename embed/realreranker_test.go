package embed

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmdai/cmdai/internal/testmode"
)

// realRerankerDir is the reranker `make reranker` built:
// $CMDAI_TEST_RERANKER_DIR, or the checkout's .tools.
func realRerankerDir(t testing.TB) string {
	t.Helper()
	testmode.Heavy(t, "the reranker")
	dir := os.Getenv("CMDAI_TEST_RERANKER_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".tools", "model", RerankerName)
	}
	_, err := VerifyReranker(dir, VariantInt8)
	require(t, err == nil, "real reranker: %v (run `make reranker`, or use `make test`)", err)
	return dir
}

// The reranker this binary runs gives PyTorch's vectors: the ones
// scripts/research/reranker/train_reranker.py wrote beside the weights it
// committed, from the model it trained. The installed reranker is int8
// (build-reranker.sh checked its fp32 file to rounding, then left it out);
// it stays close enough that its cosines rank alike.
func TestRealRerankerMatchesPyTorch(t *testing.T) {
	dir := realRerankerDir(t)
	requireORT(t)
	var ref struct {
		Texts   []string    `json:"texts"`
		Vectors [][]float64 `json:"vectors"`
	}
	b, err := os.ReadFile(filepath.Join("..", "scripts", "install", "reranker", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil || len(ref.Texts) < 10 || len(ref.Texts) != len(ref.Vectors) {
		t.Fatalf("reference.json: %v (%d texts, %d vectors)", err, len(ref.Texts), len(ref.Vectors))
	}
	for variant, floor := range map[string]float64{VariantInt8: 0.98} {
		e, err := OpenReranker(context.Background(), Options{Dir: dir, Backend: BackendORT, Variant: variant})
		if err != nil {
			t.Fatalf("open the reranker (%s): %v", variant, err)
		}
		if info := e.Info(); info.Model != RerankerName || info.SHA256 == "" {
			t.Errorf("info %+v: want %s with its sha256", info, RerankerName)
		}
		got, err := e.Embed(context.Background(), ref.Texts)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		worst := 1.0
		for i := range got {
			want := make([]float32, len(ref.Vectors[i]))
			for j, x := range ref.Vectors[i] {
				want[j] = float32(x)
			}
			worst = min(worst, Cosine(got[i], want))
		}
		if worst < floor {
			t.Errorf("%s: min cosine to PyTorch %.5f < %.4f", variant, worst, floor)
		}
		t.Logf("%s: min cosine to PyTorch %.6f over %d texts", variant, worst, len(got))
	}
}
