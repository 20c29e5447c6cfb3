package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/fsx"
)

// realRerankerDir is the reranker `make reranker` built: a test that needs
// it fails without it, never skips.
func realRerankerDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CMDAI_TEST_RERANKER_DIR")
	if dir == "" {
		dir = filepath.Join(os.Getenv("CMDAI_TOOLS"), "model", embed.RerankerName)
	}
	_, err := embed.VerifyReranker(dir, "")
	need(t, err)
	return dir
}

// rerankFeatures runs `index eval --features` with args and says whether
// learned mode's candidates carried the reranker's features.
func rerankFeatures(t *testing.T, queries string, args ...string) (bool, int, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "features.jsonl")
	code, _, errText := runCLI(t, append([]string{"index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "learned", "--features", out}, args...)...)
	data, _ := os.ReadFile(out)
	return strings.Contains(string(data), `"rerank_gap"`), code, errText
}

// Learned mode's reranker: used where it is installed, and then scored
// with its weights; left out quietly when none is installed; left out
// with a warning when the installed one does not verify; an error (exit
// 5) when asked for by --reranker-dir and missing or damaged; off with
// --no-rerank.
func TestRerankerInstalledDamagedAsked(t *testing.T) {
	initGizmoMachine(t, false)
	src := realRerankerDir(t)
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"query": "turn my widgets into gadgets", "command": "gizmo"}`+"\n"+
		`{"query": "twiddle the bits of files recursively", "command": "frob"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if used, code, errText := rerankFeatures(t, queries); used || code != 0 || strings.Contains(errText, "reranker") {
		t.Errorf("none installed: features %v, exit %d, stderr %q; want learned mode as before, quietly", used, code, errText)
	}
	if used, code, errText := rerankFeatures(t, queries, "--reranker-dir", src); !used || code != 0 {
		t.Errorf("--reranker-dir %s: features %v, exit %d %s", src, used, code, errText)
	}
	if _, code, errText := rerankFeatures(t, queries, "--reranker-dir", filepath.Join(t.TempDir(), "none")); code != 5 || !strings.Contains(errText, "reranker not installed") {
		t.Errorf("--reranker-dir of nothing: exit %d %q, want 5 and what is missing", code, errText)
	}

	// installed by `cmdai model import` beside the model, where queries find it
	if code, out, errText := runCLI(t, "model", "import", src); code != 0 || !strings.Contains(out, embed.RerankerName) {
		t.Fatalf("model import of the reranker: exit %d %s %s", code, out, errText)
	}
	installed, err := config.ModelDir(os.Getenv, embed.RerankerName)
	if err != nil {
		t.Fatal(err)
	}
	if used, code, errText := rerankFeatures(t, queries); !used || code != 0 {
		t.Errorf("installed in %s: features %v, exit %d %s", installed, used, code, errText)
	}
	if used, code, _ := rerankFeatures(t, queries, "--no-rerank"); used || code != 0 {
		t.Errorf("--no-rerank: features %v, exit %d", used, code)
	}

	// damaged: a warning, and learned mode alone
	if err := fsx.WriteBytes(filepath.Join(installed, "model_int8.onnx"), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	used, code, errText := rerankFeatures(t, queries)
	if used || code != 0 || !strings.Contains(errText, "warning:") || !strings.Contains(errText, "answering without the reranker") || !strings.Contains(errText, "model_int8.onnx") {
		t.Errorf("damaged install: features %v, exit %d, stderr %q; want a warning naming the file and learned mode alone", used, code, errText)
	}
	code, _, errText = runCLI(t, "index", "query", "turn my widgets into gadgets", "--distro", "debian-12", "--no-serve", "--reranker-dir", installed)
	if code != 5 || !strings.Contains(errText, "model_int8.onnx") {
		t.Errorf("--reranker-dir of a damaged reranker: exit %d %q, want 5 naming the file", code, errText)
	}
}
