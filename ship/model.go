package ship

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/packaging"
)

// modelEpoch stamps model tarball entries: a model has no build time of
// its own, and a fixed one keeps exports byte-identical.
var modelEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// ModelExport is a model tarball ExportModel wrote.
type ModelExport struct {
	Name   string // the model's name, the tarball's top directory
	Path   string // the tarball; Path+packaging.ChecksumSuffix is beside it
	Files  int    // files in the tarball, the manifest included
	SHA256 string // the tarball's
}

// ExportModel verifies the installed model in dir, then writes it to out
// (a file, or a directory to write <model>.tar.gz into): every file of its
// manifest under <model>/, in name order, with a fixed time, so that two
// exports are byte-identical. A model that does not verify is not
// exported: the error is marked ErrVerification.
func ExportModel(ctx context.Context, dir, out string) (ModelExport, error) {
	m, err := embed.Verify(dir, "")
	if err != nil {
		return ModelExport{}, verification(err)
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		out = filepath.Join(out, m.Name+".tar.gz")
	}
	names := []string{embed.ManifestFile}
	for n := range m.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var entries []packaging.Entry
	for _, n := range names {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p)
		if err != nil {
			return ModelExport{}, err
		}
		entries = append(entries, packaging.Entry{Name: m.Name + "/" + n, Size: st.Size(), Open: func() (io.ReadCloser, error) { return os.Open(p) }})
	}
	sum, err := packaging.WriteFile(out, func(w io.Writer) error { return packaging.WriteTarGz(ctx, w, modelEpoch, entries) })
	if err != nil {
		return ModelExport{}, fmt.Errorf("model export: %w", err)
	}
	return ModelExport{Name: m.Name, Path: out, Files: len(names), SHA256: sum}, nil
}

// CheckModel refuses an index (its manifest m) whose vectors the model
// installed in modelDir cannot be compared with: none installed, or
// another one (sha256 or dimensions). The error is marked ErrVerification.
func CheckModel(modelDir string, m packaging.Manifest) error {
	mm, err := embed.ReadManifest(modelDir)
	if err != nil {
		return verification(fmt.Errorf("this index needs the model %s %s to be queried, and none is installed: %w", m.Model.Name, m.Model.Variant, err))
	}
	if got := mm.ModelSHA256(m.Model.Variant); got != m.Model.SHA256 || mm.Dims != m.Model.Dims {
		return verification(fmt.Errorf("the index was built with %s %s (sha256 %.12s, %d dims) but the installed model's %s is %.12s (%d dims): install the same model (`cmdai model import` with the model the index came with)",
			m.Model.Name, m.Model.Variant, m.Model.SHA256, m.Model.Dims, m.Model.Variant, got, mm.Dims))
	}
	return nil
}
