package ship

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/packaging"
)

// VerifyBeside checks path against FILE.sha256 or a checksums.txt in its
// directory that lists it (what a release holds), and returns which one
// it used ("" if there is neither). A mismatch is ErrVerification.
func VerifyBeside(path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		return "", verification(fmt.Errorf("import: %w", err))
	}
	for _, sums := range []string{path + packaging.ChecksumSuffix, filepath.Join(filepath.Dir(path), "checksums.txt")} {
		f, err := os.Open(sums)
		if err != nil {
			continue
		}
		list, err := packaging.ParseChecksums(f)
		f.Close()
		if err != nil {
			return sums, verification(fmt.Errorf("%s: %w", sums, err))
		}
		if _, ok := list[filepath.Base(path)]; !ok {
			if strings.HasSuffix(sums, packaging.ChecksumSuffix) {
				return sums, verification(fmt.Errorf("%s lists no checksum for %s", sums, filepath.Base(path)))
			}
			continue
		}
		if err := packaging.VerifyFile(path, sums); err != nil {
			return sums, verification(err)
		}
		return sums, nil
	}
	return "", nil
}

// FileOptions configure ImportFile.
type FileOptions struct {
	// Check decides, from the manifest alone, whether to go on and
	// where to. It runs before Connect: a call that cannot go on fails
	// before a server starts. Its error is returned as it is.
	Check func(packaging.Manifest) (Target, error)
	// Connect gives the store to import into, once Check has passed
	// (not called with Validate); it may refuse m, e.g. for want of space.
	Connect func(ctx context.Context, m packaging.Manifest) (*chroma.Store, error)
	// Validate, WriteBatch and Progress are as in ImportOptions.
	Validate   bool
	WriteBatch int
	Progress   func(done, total int)
}

// ImportFile imports the tarball at path (see Import), its manifest
// checked first; it returns the manifest and the collection written.
func ImportFile(ctx context.Context, path string, o FileOptions) (packaging.Manifest, string, error) {
	first, err := readManifest(ctx, path)
	if err != nil {
		return first, "", err
	}
	to, err := o.Check(first)
	if err != nil {
		return first, "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return first, "", fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	// The import reads the manifest again; it must be the one checked.
	checked := func(m packaging.Manifest) (Target, error) {
		if !reflect.DeepEqual(m, first) {
			return Target{}, verification(fmt.Errorf("%s changed while it was being imported: import it again once it is complete", path))
		}
		return to, nil
	}
	var store *chroma.Store
	if !o.Validate {
		if store, err = o.Connect(ctx, first); err != nil {
			return first, "", err
		}
	}
	return Import(ctx, store, f, ImportOptions{Check: checked, Validate: o.Validate, WriteBatch: o.WriteBatch, Progress: o.Progress})
}

// readManifest reads the manifest of the tarball at path (its first
// entry) without reading the records.
func readManifest(ctx context.Context, path string) (packaging.Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return packaging.Manifest{}, err
	}
	defer f.Close()
	return packaging.ReadManifest(ctx, f, packaging.Limits{})
}
