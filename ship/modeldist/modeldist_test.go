package modeldist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/testmode"
)

// TestPinnedMatchesBuiltModel: the sha256s pinned in the binary are those
// of the model `make model` builds, so neither can change without the
// other (`go generate ./ship/modeldist` rewrites pinned.go).
func TestPinnedMatchesBuiltModel(t *testing.T) {
	testmode.Heavy(t, "the model `make model` builds")
	dir := os.Getenv("CMDAI_TEST_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".tools", "model", embed.ModelName)
	}
	if err := CheckDir(dir); err != nil {
		t.Fatalf("%v\nthe model was rebuilt: run `go generate ./ship/modeldist` and commit pinned.go", err)
	}
	for _, v := range []string{embed.VariantFP32, embed.VariantInt8} {
		if _, err := embed.Verify(dir, v); err != nil {
			t.Errorf("variant %s: %v", v, err)
		}
	}
}

// usePins swaps the pins for small made-up files and returns their dir.
func usePins(t *testing.T, files map[string]string) string {
	t.Helper()
	old := pinned
	t.Cleanup(func() { pinned = old })
	dir := t.TempDir()
	pinned = nil
	for _, name := range []string{"a.json", "model.onnx"} {
		body := files[name]
		sum := sha256.Sum256([]byte(body))
		pinned = append(pinned, File{Name: name, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func tarGz(t *testing.T, entries map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "m.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRevAndNameFollowThePins(t *testing.T) {
	usePins(t, map[string]string{"a.json": "{}", "model.onnx": "one"})
	r1, n1 := Rev(), TarballName()
	usePins(t, map[string]string{"a.json": "{}", "model.onnx": "two"})
	if Rev() == r1 || TarballName() == n1 || len(Rev()) != 12 {
		t.Errorf("rev %s -> %s, name %s -> %s", r1, Rev(), n1, TarballName())
	}
	if !strings.HasPrefix(n1, "cmdai-model_"+embed.ModelName+"_") || !strings.HasSuffix(n1, "_"+r1+".tar.gz") {
		t.Errorf("name %s", n1)
	}
}

// TestWriteTarballUnpacks: WriteTarball's tarball is byte-stable and
// unpacks to the pinned files; unpack refuses what is not pinned.
func TestWriteTarballUnpacks(t *testing.T) {
	dir := usePins(t, map[string]string{"a.json": `{"x":1}`, "model.onnx": "weights"})
	out1, out2 := t.TempDir(), t.TempDir()
	p1, err := WriteTarball(context.Background(), dir, out1)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := WriteTarball(context.Background(), dir, out2)
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) || filepath.Base(p1) != TarballName() {
		t.Errorf("two tarballs differ or are misnamed: %s", p1)
	}
	got := t.TempDir()
	if err := unpack(p1, got); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(got); err != nil {
		t.Error(err)
	}

	for name, entries := range map[string]map[string]string{
		"extra file":   {embed.ModelName + "/a.json": `{"x":1}`, embed.ModelName + "/model.onnx": "weights", embed.ModelName + "/evil.sh": "x"},
		"other top":    {"other-model/a.json": `{"x":1}`},
		"path escape":  {embed.ModelName + "/../a.json": `{"x":1}`},
		"size differs": {embed.ModelName + "/model.onnx": "weights, and more"},
	} {
		err := unpack(tarGz(t, entries), t.TempDir())
		if !errors.Is(err, ErrNotPinned) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// same sizes, other bytes: unpack takes it, CheckDir does not
	bad := t.TempDir()
	if err := unpack(tarGz(t, map[string]string{embed.ModelName + "/a.json": `{"y":1}`, embed.ModelName + "/model.onnx": "weightz"}), bad); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(bad); !errors.Is(err, ErrNotPinned) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("other bytes: %v", err)
	}
	// truncated
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	os.WriteFile(cut, b1[:len(b1)/2], 0o644)
	if err := unpack(cut, t.TempDir()); !errors.Is(err, ErrDamaged) {
		t.Errorf("truncated: %v", err)
	}
	// the model in dir changed: WriteTarball refuses it
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("weightz"), 0o644)
	if _, err := WriteTarball(context.Background(), dir, t.TempDir()); !errors.Is(err, ErrNotPinned) || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("changed model: %v", err)
	}
}
