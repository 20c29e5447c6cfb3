package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/search/adapter"
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
	if err := safefile.WriteBytes(filepath.Join(installed, "model_int8.onnx"), []byte("not a model"), 0o644); err != nil {
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

// copyReranker copies the reranker in src to a new directory, leaving
// out the files in drop, and rewrites its manifest to list what is there
// (with adapter, when not nil, as its adapter.bin): a reranker as another
// build would have written it.
func copyReranker(t *testing.T, src string, adapter []byte, drop ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), embed.RerankerName)
	need(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	need(t, err)
	for _, e := range entries {
		if slices.Contains(drop, e.Name()) || e.Name() == "manifest.json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		need(t, err)
		need(t, os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644))
	}
	if adapter != nil {
		need(t, os.WriteFile(filepath.Join(dst, "adapter.bin"), adapter, 0o644))
	}
	var m map[string]any
	data, err := os.ReadFile(filepath.Join(src, "manifest.json"))
	need(t, err)
	need(t, json.Unmarshal(data, &m))
	files := map[string]string{}
	entries, err = os.ReadDir(dst)
	need(t, err)
	for _, e := range entries {
		sum, _, err := packaging.FileSHA256(filepath.Join(dst, e.Name()))
		need(t, err)
		files[e.Name()] = sum
	}
	m["files"] = files
	data, err = json.Marshal(m)
	need(t, err)
	need(t, os.WriteFile(filepath.Join(dst, "manifest.json"), data, 0o644))
	return dst
}

// The query adapter ships in the reranker's directory: its two features
// come with the reranker's; a reranker built before it (no adapter.bin)
// is used without them; an adapter for another width is refused like a
// damaged reranker: exit 5 when asked for by --reranker-dir, a warning
// and learned mode alone when found installed.
func TestRerankerAdapter(t *testing.T) {
	initGizmoMachine(t, false)
	src := realRerankerDir(t)
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	need(t, os.WriteFile(queries, []byte(`{"query": "turn my widgets into gadgets", "command": "gizmo"}`+"\n"), 0o644))
	features := func(args ...string) (rerank, adapt bool, code int, errText string) {
		out := filepath.Join(t.TempDir(), "features.jsonl")
		code, _, errText = runCLI(t, append([]string{"index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "learned", "--features", out}, args...)...)
		data, _ := os.ReadFile(out)
		return strings.Contains(string(data), `"rerank_gap"`), strings.Contains(string(data), `"adesc_gap"`), code, errText
	}
	if _, err := os.Stat(filepath.Join(src, "adapter.bin")); err != nil {
		t.Fatalf("`make reranker` must ship the query adapter: %v", err)
	}
	if rr, ad, code, errText := features("--reranker-dir", src); !rr || !ad || code != 0 {
		t.Errorf("the shipped reranker: reranker features %v, adapter features %v, exit %d %s; want both", rr, ad, code, errText)
	}
	if rr, ad, code, errText := features("--reranker-dir", copyReranker(t, src, nil, "adapter.bin")); !rr || ad || code != 0 {
		t.Errorf("a reranker without adapter: reranker features %v, adapter features %v, exit %d %s; want the reranker's alone", rr, ad, code, errText)
	}
	three, err := adapter.New(3, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, nil)
	need(t, err)
	foreign := copyReranker(t, src, three.Encode(), "adapter.bin")
	if _, _, code, errText := features("--reranker-dir", foreign); code != 5 || !strings.Contains(errText, "adapter.bin maps vectors of 3") {
		t.Errorf("--reranker-dir with a 3-wide adapter: exit %d %q, want 5 naming adapter.bin", code, errText)
	}
	// installed as a hand-built reranker would be (its manifest verifies)
	if code, out, errText := runCLI(t, "model", "import", foreign); code != 0 {
		t.Fatalf("model import: exit %d %s %s", code, out, errText)
	}
	if rr, ad, code, errText := features(); rr || ad || code != 0 || !strings.Contains(errText, "warning:") || !strings.Contains(errText, "adapter.bin") {
		t.Errorf("installed with a 3-wide adapter: reranker features %v, adapter %v, exit %d, stderr %q; want a warning and learned mode alone", rr, ad, code, errText)
	}
	if _, out, errText := runCLI(t, "doctor"); !strings.Contains(out+errText, "maps vectors of 3") {
		t.Errorf("doctor must name the foreign adapter: %s %s", out, errText)
	}
}
