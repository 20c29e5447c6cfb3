package ship

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship/release"
)

// Beside says what checked a tarball before its import.
type Beside struct {
	Sums   string            // the checksums file used ("" if there was none)
	Signed *packaging.Signed // set when that file's signature verified
	// Unchecked says why a signature beside it was not checked ("" when
	// it was, or when there is none).
	Unchecked string
}

// VerifyBeside checks path against what stands beside it: a signed
// checksums.txt (checksums.txt.minisig, verified with trust.Keys) first,
// then FILE.sha256 or an unsigned checksums.txt listing it. A bad
// signature, a mismatch or, with trust.Require, the want of a signature
// is ErrVerification.
func VerifyBeside(path string, trust Trust) (Beside, error) {
	if _, err := os.Stat(path); err != nil {
		return Beside{}, verification(fmt.Errorf("import: %w", err))
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	list := filepath.Join(dir, release.ChecksumsName)
	sig, err := os.ReadFile(list + packaging.SignatureSuffix)
	switch {
	case err == nil && len(trust.Keys) == 0 && !trust.Require:
		// A dev build pins no key: say so and go on with the sums alone.
		b, err := verifyUnsigned(path)
		b.Unchecked = fmt.Sprintf("%s is signed, but this cmdai pins no release key to check it with (pass --public-key)", list)
		return b, err
	case err == nil:
		data, err := os.ReadFile(list)
		if err != nil {
			return Beside{Sums: list}, verification(fmt.Errorf("%s stands without the %s it signs: %w", list+packaging.SignatureSuffix, release.ChecksumsName, err))
		}
		signed, err := packaging.VerifySignature(list, data, sig, trust.Keys)
		if err != nil {
			return Beside{Sums: list}, verification(err)
		}
		sums, err := packaging.ParseChecksums(strings.NewReader(string(data)))
		if err != nil {
			return Beside{Sums: list}, verification(fmt.Errorf("%s: %w", list, err))
		}
		if _, ok := sums[base]; !ok {
			return Beside{Sums: list}, verification(fmt.Errorf("the signed %s lists no %s: it is not a file of that release", list, base))
		}
		if err := packaging.VerifyFile(path, list); err != nil {
			return Beside{Sums: list}, verification(err)
		}
		return Beside{Sums: list, Signed: &signed}, nil
	case !errors.Is(err, os.ErrNotExist):
		return Beside{}, verification(fmt.Errorf("read %s: %w", list+packaging.SignatureSuffix, err))
	case trust.Require:
		return Beside{}, verification(fmt.Errorf("%w: no %s beside %s, and --require-signature refuses a tarball whose checksums are not signed: copy checksums.txt and checksums.txt.minisig from the release into %s",
			packaging.ErrUnsigned, release.ChecksumsName+packaging.SignatureSuffix, path, dir))
	}
	return verifyUnsigned(path)
}

// verifyUnsigned checks path against FILE.sha256 or a checksums.txt in its
// directory that lists it, and says which one it used (none: Sums "").
func verifyUnsigned(path string) (Beside, error) {
	for _, sums := range []string{path + packaging.ChecksumSuffix, filepath.Join(filepath.Dir(path), release.ChecksumsName)} {
		f, err := os.Open(sums)
		if err != nil {
			continue
		}
		list, err := packaging.ParseChecksums(f)
		f.Close()
		if err != nil {
			return Beside{Sums: sums}, verification(fmt.Errorf("%s: %w", sums, err))
		}
		if _, ok := list[filepath.Base(path)]; !ok {
			if strings.HasSuffix(sums, packaging.ChecksumSuffix) {
				return Beside{Sums: sums}, verification(fmt.Errorf("%s lists no checksum for %s", sums, filepath.Base(path)))
			}
			continue
		}
		if err := packaging.VerifyFile(path, sums); err != nil {
			return Beside{Sums: sums}, verification(err)
		}
		return Beside{Sums: sums}, nil
	}
	return Beside{}, nil
}

// FileOptions configure ImportFile.
type FileOptions struct {
	// Check decides, from the manifest alone, whether to go on and
	// where to. It runs before Connect: a call that cannot go on fails
	// before a server starts. Its error is returned as it is.
	Check func(packaging.Manifest) (Target, error)
	// Connect gives the connection to import into, once Check has passed
	// (not called with Validate); it may refuse m, e.g. for want of space.
	// The caller closes it.
	Connect func(ctx context.Context, m packaging.Manifest) (*connect.Connection, error)
	// Validate, WriteBatch and Progress are as in ImportOptions.
	Validate   bool
	WriteBatch int
	Progress   func(done, total int)
	// From and Unsigned are as in ImportOptions.
	From     string
	Unsigned bool
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
		conn, err := o.Connect(ctx, first)
		if err != nil {
			return first, "", err
		}
		store = conn.Store
	}
	return Import(ctx, store, f, ImportOptions{Check: checked, Validate: o.Validate, WriteBatch: o.WriteBatch, Progress: o.Progress, From: o.From, Unsigned: o.Unsigned})
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
