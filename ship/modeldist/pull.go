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

// Pull fetches TarballName() from the release location src into the
// download directory dir, unpacks it, checks every file against the
// pins, and installs it as dst through embed.Install (atomic: a failure
// leaves the model in dst as it was). The tarball is removed afterwards,
// kept only when a cut download can be resumed. Errors from a file that
// is not the pinned model wrap ErrNotPinned or ErrDamaged; errors reaching
// the location wrap netx.ErrNetwork; a location without the tarball
// wraps release.ErrNotFound.
func Pull(ctx context.Context, src release.Source, dir, dst string, progress release.Progress) (embed.Manifest, error) {
	name := TarballName()
	got, err := src.Fetch(ctx, name, dir, progress)
	if errors.Is(err, release.ErrNotFound) {
		return embed.Manifest{}, fmt.Errorf("%s has no %s, the model this cmdai pins: %w (use the release this cmdai came from, or `cmdai model import DIR|TAR`)", src.Base, name, err)
	}
	if err != nil {
		return embed.Manifest{}, err
	}
	defer os.Remove(got)
	return InstallTarball(got, dst)
}

// InstallTarball unpacks a model tarball (TarballName()'s layout) into a
// temporary directory, checks it against the pins and installs it as dst.
func InstallTarball(tarball, dst string) (embed.Manifest, error) {
	tmp, err := os.MkdirTemp("", "cmdai-model-pull-")
	if err != nil {
		return embed.Manifest{}, err
	}
	defer os.RemoveAll(tmp)
	if err := unpack(tarball, tmp); err != nil {
		return embed.Manifest{}, fmt.Errorf("%s: %w", tarball, err)
	}
	if err := CheckDir(tmp); err != nil {
		return embed.Manifest{}, fmt.Errorf("%s: %w; nothing was installed", tarball, err)
	}
	return embed.Install(tmp, dst)
}

// unpack writes the pinned files of the tarball into dir. It reads no
// more of an entry than the pinned size allows, so a huge or hostile
// tarball costs no more disk than the model; anything but the pinned
// files under all-MiniLM-L6-v2/ is refused.
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
	sizes := map[string]int64{}
	for _, p := range pinned {
		sizes[p.Name] = p.Size
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
		top, base := path.Split(path.Clean(h.Name))
		size, ok := sizes[base]
		if top != embed.ModelName+"/" || !ok || h.Typeflag != tar.TypeReg {
			return fmt.Errorf("%w: the tarball holds %q, not a file of %s", ErrNotPinned, h.Name, embed.ModelName)
		}
		if h.Size != size {
			return fmt.Errorf("%w: %s is %d bytes in the tarball, the pinned one %d", ErrNotPinned, base, h.Size, size)
		}
		if err := writeEntry(tr, filepath.Join(dir, base), size); err != nil {
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
