package embed

// Tests against the real all-MiniLM-L6-v2 built by `make model`
// (scripts/install/fetch-model.sh) and the real ONNX Runtime from `make tools`.
// They never skip in CI: a missing component is a failure there.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/internal/testmode"
)

// require fails the test when a real component is missing, with the fix;
// never a skip, which would hide a missing install step.
func require(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format+" (run the tests with `make test`, which installs it)", args...)
	}
}

// realModelDir is the model `make model` built: $CMDAI_TEST_MODEL_DIR, or
// the checkout's .tools.
func realModelDir(t testing.TB) string {
	t.Helper()
	testmode.Heavy(t, "the model")
	dir := os.Getenv("CMDAI_TEST_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".tools", "model", ModelName)
	}
	_, err := Verify(dir, VariantFP32)
	require(t, err == nil, "real model: %v (run `make model`, or use `make test`)", err)
	return dir
}

func requireORT(t testing.TB) {
	t.Helper()
	testmode.Heavy(t, "ONNX Runtime and the tokenizers library")
	require(t, ORTAvailable(), "this test binary has no ONNX Runtime backend: run the tests with `make test` (go test -tags ORT, after `make tools`)")
	require(t, FindORTLibDir(os.Getenv) != "", "%s not found: run `make tools` or set CMDAI_ORT_LIB_DIR", ORTLibName)
}

func openReal(t testing.TB, backend, variant string) Embedder {
	t.Helper()
	dir := realModelDir(t)
	if backend == BackendORT {
		requireORT(t)
	}
	e, err := Open(context.Background(), Options{Dir: dir, Backend: backend, Variant: variant})
	if err != nil {
		t.Fatalf("open %s/%s: %v", backend, variant, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return e
}

type refItem struct {
	Text     string    `json:"text"`
	Tokens   int       `json:"tokens"`
	InputIDs []int     `json:"input_ids"`
	Vector   []float32 `json:"vector"`
}

// loadReference reads the vectors scripts/install/reference_vectors.py computed
// with a plain numpy forward pass over the same weights.
func loadReference(t testing.TB) []refItem {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "reference_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Model string    `json:"model"`
		Dims  int       `json:"dims"`
		Items []refItem `json:"items"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.Model != ModelName || ref.Dims != Dims || len(ref.Items) < 50 {
		t.Fatalf("reference file: model %q dims %d, %d items", ref.Model, ref.Dims, len(ref.Items))
	}
	return ref.Items
}

func texts(items []refItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Text
	}
	return out
}

// compare checks got against want item by item and returns the smallest
// and mean cosine.
func compare(t *testing.T, label string, items []refItem, got [][]float32) (minCos, mean float64) {
	t.Helper()
	if len(got) != len(items) {
		t.Fatalf("%s: %d vectors for %d texts", label, len(got), len(items))
	}
	minCos = 2
	for i, it := range items {
		if len(got[i]) != Dims {
			t.Fatalf("%s: item %d has %d dims", label, i, len(got[i]))
		}
		c := Cosine(got[i], it.Vector)
		mean += c
		if c < minCos {
			minCos = c
		}
	}
	return minCos, mean / float64(len(items))
}

func subset(items []refItem) []refItem {
	// Short and long texts, including ones cut at 256 word pieces.
	var out []refItem
	for i, it := range items {
		if i < 6 || it.Tokens == MaxSeqLength && len(out) < 8 {
			out = append(out, it)
		}
	}
	return out
}

func TestReferenceVectorsORT(t *testing.T) {
	items := loadReference(t)
	e := openReal(t, BackendORT, VariantFP32)
	if got := e.Info(); got.Backend != BackendORT || got.Dims != Dims || got.SHA256 == "" {
		t.Fatalf("info %+v", got)
	}
	got, err := e.Embed(context.Background(), texts(items))
	if err != nil {
		t.Fatal(err)
	}
	minCos, mean := compare(t, "ort fp32", items, got)
	t.Logf("ORT fp32 vs numpy reference over %d texts: min cosine %.8f, mean %.8f", len(items), minCos, mean)
	if minCos < 0.9999 {
		t.Errorf("min cosine %.6f < 0.9999", minCos)
	}
	for i, v := range got {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n < 0.9998 || n > 1.0002 {
			t.Errorf("vector %d has squared norm %.5f, want 1 (L2-normalised)", i, n)
		}
	}
	// Padding within a batch must not change a text's vector: one by one
	// gives the same numbers as the length-sorted batches.
	for _, i := range []int{0, 20, len(items) - 1} {
		one, err := e.Embed(context.Background(), []string{items[i].Text})
		if err != nil {
			t.Fatal(err)
		}
		if c := Cosine(one[0], got[i]); c < 0.99999 {
			t.Errorf("item %d alone vs in a batch: cosine %.7f", i, c)
		}
	}
}

func TestGoBackendMatchesReferenceAndORT(t *testing.T) {
	items := subset(loadReference(t))
	goEmb := openReal(t, BackendGo, VariantFP32)
	if goEmb.Info().Backend != BackendGo {
		t.Fatalf("info %+v", goEmb.Info())
	}
	goVecs, err := goEmb.Embed(context.Background(), texts(items))
	if err != nil {
		t.Fatal(err)
	}
	minCos, _ := compare(t, "go fp32", items, goVecs)
	t.Logf("pure-Go fp32 vs numpy reference over %d texts (%d cut at %d pieces): min cosine %.8f", len(items), countLong(items), MaxSeqLength, minCos)
	if minCos < 0.9999 {
		t.Errorf("pure-Go vs reference: min cosine %.6f < 0.9999", minCos)
	}

	ortEmb := openReal(t, BackendORT, VariantFP32)
	ortVecs, err := ortEmb.Embed(context.Background(), texts(items))
	if err != nil {
		t.Fatal(err)
	}
	agree := 2.0
	for i := range items {
		agree = min(agree, Cosine(goVecs[i], ortVecs[i]))
	}
	t.Logf("pure-Go vs ORT: min cosine %.8f", agree)
	if agree < 0.9999 {
		t.Errorf("pure-Go vs ORT: min cosine %.6f < 0.9999", agree)
	}
}

func countLong(items []refItem) int {
	n := 0
	for _, it := range items {
		if it.Tokens >= MaxSeqLength {
			n++
		}
	}
	return n
}

// TestTruncation checks sentence-transformers' cut at 256 word pieces on
// both backends: words appended after the cut change nothing, words
// before it do.
func TestTruncation(t *testing.T) {
	long := strings.Repeat("the archive is written to standard output unless a file is named ", 40) // ~480 pieces
	base := []string{long, long + " completely different trailing words about kernels and printers", "kernels and printers " + long}
	for _, backend := range []string{BackendORT, BackendGo} {
		t.Run(backend, func(t *testing.T) {
			e := openReal(t, backend, VariantFP32)
			v, err := e.Embed(context.Background(), base)
			if err != nil {
				t.Fatal(err)
			}
			if c := Cosine(v[0], v[1]); c < 0.999999 {
				t.Errorf("text past piece 256 changed the vector: cosine %.7f", c)
			}
			if c := Cosine(v[0], v[2]); c > 0.9999 {
				t.Errorf("text before the cut did not change the vector: cosine %.7f", c)
			}
		})
	}
}

func TestMeaning(t *testing.T) {
	for _, variant := range []string{VariantFP32, VariantInt8} {
		t.Run(variant, func(t *testing.T) {
			e := openReal(t, BackendORT, variant)
			v, err := e.Embed(context.Background(), []string{
				"list files in a directory", "show directory contents", "compress a tarball",
				"find files modified in the last day", "search for files by modification time", "change the owner of a file",
			})
			if err != nil {
				t.Fatal(err)
			}
			near, far := Cosine(v[0], v[1]), Cosine(v[0], v[2])
			t.Logf("%s: cos(list files, show directory contents)=%.4f cos(list files, compress a tarball)=%.4f", variant, near, far)
			if near <= far+0.3 {
				t.Errorf("near %.4f is not clearly above far %.4f", near, far)
			}
			if a, b := Cosine(v[3], v[4]), Cosine(v[3], v[5]); a <= b {
				t.Errorf("find-by-time %.4f not above chown %.4f", a, b)
			}
		})
	}
}

// TestInt8Quality bounds what the int8 model loses against the reference.
func TestInt8Quality(t *testing.T) {
	items := loadReference(t)
	e := openReal(t, BackendORT, VariantInt8)
	got, err := e.Embed(context.Background(), texts(items))
	if err != nil {
		t.Fatal(err)
	}
	minCos, mean := compare(t, "ort int8", items, got)
	t.Logf("ORT int8 vs fp32 numpy reference over %d texts: min cosine %.4f, mean %.4f", len(items), minCos, mean)
	if minCos < 0.96 || mean < 0.99 {
		t.Errorf("int8 quality: min %.4f (want >= 0.96), mean %.4f (want >= 0.99)", minCos, mean)
	}
}

// TestFallbackToGo: with no ONNX Runtime library the default backend is
// the pure-Go one, announced in one line; forcing ORT is an error that
// names the fix.
func TestFallbackToGo(t *testing.T) {
	dir := realModelDir(t)
	empty := t.TempDir()
	var notices []string
	e, err := Open(context.Background(), Options{Dir: dir, ORTLibDir: empty, Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Info().Backend != BackendGo || e.Info().Variant != VariantFP32 {
		t.Errorf("backend %q variant %q, want go fp32 (the only variant it runs)", e.Info().Backend, e.Info().Variant)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "pure-Go") || strings.Contains(notices[0], "\n") {
		t.Errorf("notices %q, want one line naming the pure-Go backend", notices)
	}
	ref := loadReference(t)[:1]
	v, err := e.Embed(context.Background(), texts(ref))
	if err != nil {
		t.Fatal(err)
	}
	if c := Cosine(v[0], ref[0].Vector); c < 0.9999 {
		t.Errorf("fallback vector: cosine %.6f", c)
	}

	_, err = Open(context.Background(), Options{Dir: dir, Backend: BackendORT, ORTLibDir: empty})
	if !errors.Is(err, ErrNoORT) || !strings.Contains(err.Error(), "make tools") && !strings.Contains(err.Error(), "CMDAI_ORT_LIB_DIR") {
		t.Errorf("forced ORT without a library: %v", err)
	}
	// int8 asked for: no silent switch to fp32, whose vectors an int8
	// index cannot compare with, and no "use --model-variant fp32" either: an int8 index
	// refuses an fp32 query, so the way out is ONNX Runtime or a new index.
	_, err = Open(context.Background(), Options{Dir: dir, Variant: VariantInt8, ORTLibDir: empty})
	if !errors.Is(err, ErrNoORT) || !strings.Contains(err.Error(), "cmdai doctor") ||
		!strings.Contains(err.Error(), "index init --force --model-variant fp32") || strings.Contains(err.Error(), "or use --model-variant") {
		t.Errorf("int8 without a library: %v", err)
	}
}

// TestVariantDefaults: ONNX Runtime runs int8 unless told otherwise; the
// pure-Go backend cannot run int8 (its graph code fails on the quantized
// operators) and says so instead of crashing.
func TestVariantDefaults(t *testing.T) {
	dir := realModelDir(t)
	requireORT(t)
	e, err := Open(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if i := e.Info(); i.Backend != BackendORT || i.Variant != VariantInt8 {
		t.Errorf("default: %s %s, want ort int8", i.Backend, i.Variant)
	}
	_, err = Open(context.Background(), Options{Dir: dir, Backend: BackendGo, Variant: VariantInt8})
	if err == nil || !strings.Contains(err.Error(), "--model-variant fp32") {
		t.Errorf("go + int8: %v", err)
	}
}

// TestBrokenModelErrors: a missing or damaged model file is refused before
// anything runs, with the command that fixes it.
func TestBrokenModelErrors(t *testing.T) {
	src := realModelDir(t)
	copyModel := func(t *testing.T) string {
		dst := filepath.Join(t.TempDir(), ModelName)
		if _, err := Install(src, dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	cases := []struct {
		name   string
		damage func(dir string) error
		want   error
	}{
		{"no directory", func(dir string) error { return os.RemoveAll(dir) }, ErrNoModel},
		{"model.onnx missing", func(dir string) error { return os.Remove(filepath.Join(dir, "model.onnx")) }, ErrCorruptModel},
		{"model.onnx truncated", func(dir string) error { return os.Truncate(filepath.Join(dir, "model.onnx"), 1<<20) }, ErrCorruptModel},
		{"tokenizer.json edited", func(dir string) error {
			p := filepath.Join(dir, "tokenizer.json")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Replace(string(b), "256", "512", 1)), 0o644)
		}, ErrCorruptModel},
		{"manifest missing", func(dir string) error { return os.Remove(filepath.Join(dir, ManifestFile)) }, ErrNoModel},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyModel(t)
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Open(context.Background(), Options{Dir: dir, Backend: BackendGo})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, "cmdai model import") || !strings.Contains(msg, dir) {
				t.Errorf("error does not name the model and the fix: %s", msg)
			}
		})
	}
}

// TestTrimNativeHeapKeepsTheModelWorking: serve trims the C heap between
// queries; the session must give the same vectors after it.
func TestTrimNativeHeapKeepsTheModelWorking(t *testing.T) {
	e := openReal(t, BackendORT, "int8")
	in := []string{"find files modified today", "count lines in a file"}
	before, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	TrimNativeHeap()
	after, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		for j := range before[i] {
			if before[i][j] != after[i][j] {
				t.Fatalf("%q: dimension %d is %v after the trim, %v before", in[i], j, after[i][j], before[i][j])
			}
		}
	}
}
