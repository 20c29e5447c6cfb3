package embed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeModel writes a model directory with small stand-in files and a
// correct manifest: enough for the install and verify logic, which only
// looks at names and hashes.
func fakeModel(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"model.onnx":     "onnx " + content,
		"tokenizer.json": `{"tok":"` + content + `"}`,
		"config.json":    `{"hidden_size":384}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := Manifest{Name: ModelName, Dims: Dims, MaxSeqLength: MaxSeqLength, Pooling: "mean", Normalize: true, Source: "test:" + content}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestVerify(t *testing.T) {
	dir := fakeModel(t, "a")
	m, err := Verify(dir, VariantFP32)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 3 || m.ModelSHA256(VariantFP32) == "" || m.HasVariant(VariantInt8) {
		t.Errorf("manifest = %+v", m)
	}
	if _, err := Verify(dir, VariantInt8); !errors.Is(err, ErrCorruptModel) || !strings.Contains(err.Error(), "model_int8.onnx") {
		t.Errorf("missing variant: %v", err)
	}
	// a truncated file is caught and the error names the file and the fix
	if err := os.Truncate(filepath.Join(dir, "model.onnx"), 2); err != nil {
		t.Fatal(err)
	}
	_, err = Verify(dir, VariantFP32)
	if !errors.Is(err, ErrCorruptModel) || !strings.Contains(err.Error(), "model.onnx") || !strings.Contains(err.Error(), "cmdai model import") {
		t.Errorf("truncated model: %v", err)
	}
	if _, err := Verify(t.TempDir(), ""); !errors.Is(err, ErrNoModel) {
		t.Errorf("empty dir: %v", err)
	}
}

func TestVerifyRejectsPathsInManifest(t *testing.T) {
	dir := fakeModel(t, "a")
	b, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	b = bytes.Replace(b, []byte(`"config.json"`), []byte(`"../config.json"`), 1)
	os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644)
	if _, err := Verify(dir, ""); err == nil {
		t.Error("a manifest naming ../config.json was accepted")
	}
}

func TestInstallIsAtomic(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "all-MiniLM-L6-v2")
	if _, err := Install(fakeModel(t, "old"), dst); err != nil {
		t.Fatal(err)
	}
	// a corrupt source is refused and the installed model stays
	bad := fakeModel(t, "new")
	os.WriteFile(filepath.Join(bad, "tokenizer.json"), []byte("tampered"), 0o644)
	if _, err := Install(bad, dst); !errors.Is(err, ErrCorruptModel) {
		t.Fatalf("corrupt source: %v", err)
	}
	m, err := Verify(dst, VariantFP32)
	if err != nil || m.Source != "test:old" {
		t.Fatalf("installed model after a failed import: %+v %v", m, err)
	}
	// a good one replaces it, leaving no temporary directories behind
	if _, err := Install(fakeModel(t, "new"), dst); err != nil {
		t.Fatal(err)
	}
	if m, err := Verify(dst, VariantFP32); err != nil || m.Source != "test:new" {
		t.Fatalf("after import: %+v %v", m, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dst))
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func tarGz(t *testing.T, dir, prefix string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		tw.WriteHeader(&tar.Header{Name: prefix + e.Name(), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	out := filepath.Join(t.TempDir(), "model.tar.gz")
	os.WriteFile(out, buf.Bytes(), 0o644)
	return out
}

func TestImportTarball(t *testing.T) {
	for _, prefix := range []string{"", "all-MiniLM-L6-v2/"} {
		dst := filepath.Join(t.TempDir(), "m")
		if _, err := Import(context.Background(), tarGz(t, fakeModel(t, "tar"), prefix), dst); err != nil {
			t.Fatalf("prefix %q: %v", prefix, err)
		}
		if m, err := Verify(dst, VariantFP32); err != nil || m.Source != "test:tar" {
			t.Errorf("prefix %q: %+v %v", prefix, m, err)
		}
	}
	// an entry escaping the directory is refused
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "../evil", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("x"))
	tw.Close()
	zw.Close()
	evil := filepath.Join(t.TempDir(), "evil.tar.gz")
	os.WriteFile(evil, buf.Bytes(), 0o644)
	if _, err := Import(context.Background(), evil, filepath.Join(t.TempDir(), "m")); err == nil {
		t.Error("an archive entry outside the model directory was accepted")
	}
}

func TestPullFromMirror(t *testing.T) {
	src := fakeModel(t, "hub")
	mux := http.NewServeMux()
	for name, rel := range hubFiles {
		body, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			body = []byte("{}") // the optional tokenizer files
		}
		mux.HandleFunc("/"+rel, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "m")
	m, err := Pull(context.Background(), srv.Client(), srv.URL, dst, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(dst, VariantFP32); err != nil || m.Source != srv.URL {
		t.Errorf("pulled model: %+v %v", m, err)
	}
	// a missing file fails with a hint, and installs nothing
	dst2 := filepath.Join(t.TempDir(), "m")
	if _, err := Pull(context.Background(), srv.Client(), srv.URL+"/nope", dst2, 0); err == nil || !strings.Contains(err.Error(), "model import") {
		t.Errorf("failed pull: %v", err)
	}
	if _, err := os.Stat(dst2); err == nil {
		t.Error("a failed pull installed something")
	}
}

// TestWriteManifestReplacesWhole: a manifest is replaced by a rename, not
// truncated in place, so a reader that opened the old one reads it whole.
func TestWriteManifestReplacesWhole(t *testing.T) {
	dir := fakeModel(t, "a")
	path := filepath.Join(dir, ManifestFile)
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	m := Manifest{Name: ModelName, Dims: Dims, MaxSeqLength: MaxSeqLength, Pooling: "mean", Normalize: true, Source: "test:other"}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	seen, err := io.ReadAll(reader)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(seen, old) {
		t.Errorf("a reader of the old manifest saw %d bytes, want the old %d: it was rewritten in place", len(seen), len(old))
	}
	if _, err := Verify(dir, ""); err != nil {
		t.Errorf("the new manifest does not verify: %v", err)
	}
}
