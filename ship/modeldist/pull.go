package modeldist

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/ship/release"
)

// ErrDamaged marks a tarball that cannot be read whole (truncated,
// a flipped byte caught by gzip's CRC): cmd gives it exit 5, as a
// checksum mismatch.
var ErrDamaged = errors.New("model tarball damaged")

// Installed is what a pull installed: the model's and the reranker's
// manifests. With an error, Model is set only when the model was
// installed and the reranker was not.
type Installed struct {
	Model, Reranker embed.Manifest
}

// Pull fetches TarballName() from the release location src into the
// download directory dir, unpacks it, checks every file of both models
// against the pins, and installs the model as dst and the reranker as
// rerankerDst (InstallTarball). The tarball is removed afterwards, kept
// only when a cut download can be resumed. Errors from a file that is not
// the pinned models wrap ErrNotPinned or ErrDamaged; errors reaching the
// location wrap netwait.ErrNetwork; a location without the tarball wraps
// release.ErrNotFound.
func Pull(ctx context.Context, src release.Source, dir, dst, rerankerDst string, progress release.Progress) (Installed, error) {
	name := TarballName()
	got, err := src.Fetch(ctx, name, dir, progress)
	if errors.Is(err, release.ErrNotFound) {
		return Installed{}, fmt.Errorf("%s has no %s, the model this cmdai pins: %w (use the release this cmdai came from, or `cmdai model import DIR|TAR`)", src.Base, name, err)
	}
	if err != nil {
		return Installed{}, err
	}
	defer os.Remove(got)
	return InstallTarball(ctx, got, dst, rerankerDst)
}

// InstallTarball unpacks a model tarball (TarballName()'s layout) into a
// temporary directory, checks both its directories against the pins and
// their manifests, and only then installs the model as dst and the
// reranker as rerankerDst, each atomically (embed's install): a tarball
// that fails a check leaves both installed ones as they were. Only an
// error of the second install itself (a full disk) can leave the new
// model beside the old reranker, which learned mode accepts.
func InstallTarball(ctx context.Context, tarball, dst, rerankerDst string) (Installed, error) {
	tmp, err := os.MkdirTemp("", "cmdai-model-pull-")
	if err != nil {
		return Installed{}, err
	}
	defer os.RemoveAll(tmp)
	if err := unpack(tarball, tmp); err != nil {
		return Installed{}, fmt.Errorf("%s: %w", tarball, err)
	}
	model, rr := filepath.Join(tmp, embed.ModelName), filepath.Join(tmp, embed.RerankerName)
	for _, check := range []func() error{
		func() error { return CheckDir(model) },
		func() error { return CheckRerankerDir(rr) },
		func() error { _, err := embed.Verify(model, ""); return err },
		func() error { _, err := embed.VerifyReranker(rr, embed.VariantInt8); return err },
	} {
		if err := check(); err != nil {
			return Installed{}, fmt.Errorf("%s: %w; nothing was installed", tarball, err)
		}
	}
	var in Installed
	if in.Model, err = embed.Install(model, dst); err != nil {
		return Installed{}, err // embed's install left dst as it was
	}
	in.Reranker, err = embed.ImportEither(ctx, rr, func(name string) (string, error) {
		if name != embed.RerankerName { // CheckRerankerDir pinned its manifest: cannot happen
			return "", fmt.Errorf("%w: %s/ holds %s", ErrNotPinned, embed.RerankerName, name)
		}
		return rerankerDst, nil
	})
	if err != nil {
		return Installed{Model: in.Model}, fmt.Errorf("the model was installed in %s, the reranker was not: %w", dst, err)
	}
	return in, nil
}

// unpack writes the pinned files of the tarball into dir/all-MiniLM-L6-v2
// and dir/cmdai-reranker. It reads no more of an entry than the pinned
// size allows, so a huge or hostile tarball costs no more disk than the
// models; anything but the pinned files under those two directories is
// refused.
func unpack(tarball, dir string) error {
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%w: not a gzip file (%v)", ErrDamaged, err)
	}
	sizes := map[string]int64{} // "<dir>/<name>" -> pinned size
	for _, p := range parts() {
		if err := os.Mkdir(filepath.Join(dir, p.dir), 0o755); err != nil {
			return err
		}
		for _, f := range p.files {
			sizes[p.dir+"/"+f.Name] = f.Size
		}
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %v (truncated?)", ErrDamaged, err)
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		name := path.Clean(h.Name)
		size, ok := sizes[name]
		if !ok || h.Typeflag != tar.TypeReg {
			return fmt.Errorf("%w: the tarball holds %q, not a file of %s or %s", ErrNotPinned, h.Name, embed.ModelName, embed.RerankerName)
		}
		if h.Size != size {
			return fmt.Errorf("%w: %s is %d bytes in the tarball, the pinned one %d", ErrNotPinned, name, h.Size, size)
		}
		if err := writeEntry(tr, filepath.Join(dir, filepath.FromSlash(name)), size); err != nil {
			return err
		}
	}
	// gzip checks its CRC and length only at the end of the stream.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	return nil
}

func writeEntry(r io.Reader, out string, size int64) error {
	w, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %v (a file twice in the tarball?)", ErrNotPinned, err)
	}
	n, err := io.Copy(w, io.LimitReader(r, size))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil || n != size {
		return fmt.Errorf("%w: %s: %d of %d bytes: %v (truncated?)", ErrDamaged, filepath.Base(out), n, size, err)
	}
	return nil
}
