package ship

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embedtest"
	"github.com/cmdai/cmdai/packaging"
)

// TestExportModel: into a directory, the tarball is named after the model
// and holds every file; two exports are byte-identical; the checksum
// file verifies; a damaged model is refused with ErrVerification.
func TestExportModel(t *testing.T) {
	dir := embedtest.FakeModel(t, "stub")
	out := t.TempDir()
	ex, err := ExportModel(context.Background(), dir, out)
	want := filepath.Join(out, embed.ModelName+".tar.gz")
	if err != nil || ex.Path != want || ex.Files != 4 || ex.Name != embed.ModelName || ex.SHA256 == "" {
		t.Fatalf("ExportModel = %+v, %v", ex, err)
	}
	first, _ := os.ReadFile(want)
	if _, err := ExportModel(context.Background(), dir, want); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(want)
	if string(first) != string(second) {
		t.Error("two exports of the same model differ")
	}
	if err := packaging.VerifyFile(want, want+packaging.ChecksumSuffix); err != nil {
		t.Errorf("checksum file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("changed"), 0o644)
	if _, err := ExportModel(context.Background(), dir, t.TempDir()); !errors.Is(err, ErrVerification) || !errors.Is(err, embed.ErrCorruptModel) {
		t.Errorf("damaged model: %v", err)
	}
}

func TestCheckModel(t *testing.T) {
	dir := embedtest.FakeModel(t, "stub")
	mm, err := embed.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	same := packaging.Manifest{Model: packaging.Model{Name: embed.ModelName, Dims: embed.Dims, Variant: embed.VariantFP32, SHA256: mm.ModelSHA256(embed.VariantFP32)}}
	if err := CheckModel(dir, same); err != nil {
		t.Errorf("same model: %v", err)
	}
	other := same
	other.Model.SHA256 = strings.Repeat("ab", 32)
	if err := CheckModel(dir, other); !errors.Is(err, ErrVerification) || !strings.Contains(err.Error(), "sha256 abababababab") {
		t.Errorf("other model: %v", err)
	}
	if err := CheckModel(t.TempDir(), same); !errors.Is(err, ErrVerification) || !strings.Contains(err.Error(), "none is installed") {
		t.Errorf("no model: %v", err)
	}
}
