package ship

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship/release"
)

// ErrVerification marks a file that failed a check of what it holds (a
// checksum, a location publishing none, a tarball other than the one asked
// for): cmd gives it exit 5. The marked error's message is unchanged.
var ErrVerification = errors.New("verification failed")

// verification marks err as ErrVerification without changing its message.
func verification(err error) error { return verifyError{err} }

type verifyError struct{ err error }

func (e verifyError) Error() string        { return e.err.Error() }
func (e verifyError) Unwrap() error        { return e.err }
func (e verifyError) Is(target error) bool { return target == ErrVerification }

// Trust says which signatures a download or an import checks.
type Trust struct {
	// Keys are the trusted release keys (pinned in the build, or given by
	// the user). With any, a download expects a signed release.
	Keys []packaging.PublicKey
	// AllowUnsigned accepts a release that publishes no signature even
	// though Keys is not empty. A bad signature is refused all the same.
	AllowUnsigned bool
	// Require refuses an import whose checksums come without a signature.
	Require bool
}

// Fetched is a downloaded tarball whose published checksum it matched.
type Fetched struct {
	Path   string // the tarball, with Path+packaging.ChecksumSuffix beside it
	SHA256 string
	// Signed is set when the checksum came from a signed checksums.txt,
	// which is then kept beside the tarball with its signature.
	Signed *packaging.Signed
	// Unsigned says why a release was taken without a signature check
	// ("" when it was checked, or when no key is known to check it with).
	Unsigned string
}

// Fetch downloads distroID's tarball from src into dir and verifies it.
// The published checksum comes first: a location that publishes none is
// refused before a byte of the tarball is fetched. With trusted keys, the
// checksum must come from a checksums.txt whose signature one of them
// verifies: an unsigned release is refused (unless AllowUnsigned), a bad
// signature always. A cut transfer is kept for the next call to resume; a
// file that fails verification is removed, so that the next call fetches
// it anew instead of resuming a wrong one. Failures to reach the location
// wrap netwait.ErrNetwork.
func Fetch(ctx context.Context, src release.Source, distroID, dir string, trust Trust, progress release.Progress) (Fetched, error) {
	name := release.TarballName(distroID)
	var got Fetched
	var signed release.SignedSums
	if len(trust.Keys) > 0 {
		var err error
		signed, err = src.SignedChecksums(ctx, trust.Keys)
		switch {
		case err == nil:
			sum, ok := signed.Sums[name]
			if !ok {
				return Fetched{}, fmt.Errorf("no index for %s at %s: its signed %s lists no %s (`cmdai index download --list --base-url %s` shows what it offers)", distroID, src.Base, release.ChecksumsName, name, src.Base)
			}
			got.SHA256, got.Signed = sum, &signed.Signed
		case errors.Is(err, packaging.ErrUnsigned) && trust.AllowUnsigned:
			got.Unsigned = err.Error()
		case errors.Is(err, packaging.ErrUnsigned):
			return Fetched{}, verification(fmt.Errorf("%w: this cmdai expects releases signed by key %s, and the location is unsigned; a mirror must copy %s too. Refusing it (pass --allow-unsigned only if you trust this location)",
				err, keyIDs(trust.Keys), release.ChecksumsName+packaging.SignatureSuffix))
		case errors.Is(err, packaging.ErrBadSignature):
			return Fetched{}, verification(err)
		default:
			return Fetched{}, err
		}
	}
	if got.SHA256 == "" {
		want, err := src.Checksums(ctx, name)
		switch {
		case errors.Is(err, release.ErrNotFound):
			return Fetched{}, fmt.Errorf("no index for %s at %s: %w (`cmdai index download --list --base-url %s` shows what it offers)", distroID, src.Base, err, src.Base)
		case errors.Is(err, release.ErrNoChecksums):
			return Fetched{}, verification(err)
		case err != nil:
			return Fetched{}, err
		}
		got.SHA256 = want
	}
	path, err := src.Fetch(ctx, name, dir, progress)
	if errors.Is(err, release.ErrNotFound) {
		return Fetched{}, fmt.Errorf("no index for %s at %s: %w (`cmdai index download --list` shows what there is)", distroID, src.Base, err)
	}
	if err != nil {
		return Fetched{}, err
	}
	got.Path = path
	sums := path + packaging.ChecksumSuffix
	if err := safefile.WriteBytes(sums, []byte(got.SHA256+"  "+name+"\n"), 0o644); err != nil {
		return Fetched{}, err
	}
	if err := packaging.VerifyFile(path, sums); err != nil {
		os.Remove(path)
		os.Remove(sums)
		return Fetched{}, verification(err)
	}
	if got.Signed == nil {
		dropStaleSignedSums(dir, name)
	} else {
		// Kept beside the tarball, so that `index import` (here, or across
		// an air gap) checks the signature again.
		for file, data := range map[string][]byte{release.ChecksumsName: signed.Data, release.ChecksumsName + packaging.SignatureSuffix: signed.Signature} {
			if err := safefile.WriteBytes(filepath.Join(dir, file), data, 0o644); err != nil {
				return Fetched{}, err
			}
		}
	}
	return got, nil
}

// dropStaleSignedSums removes a signed checksums.txt left in dir by an
// earlier download when it lists name: it no longer describes the file
// that now stands there, and an import would find the two at odds.
func dropStaleSignedSums(dir, name string) {
	list := filepath.Join(dir, release.ChecksumsName)
	data, err := os.ReadFile(list)
	if err != nil {
		return
	}
	if sums, err := packaging.ParseChecksums(strings.NewReader(string(data))); err == nil {
		if _, ok := sums[name]; !ok {
			return
		}
	}
	os.Remove(list + packaging.SignatureSuffix)
	os.Remove(list)
}

// keyIDs lists the keys' IDs for a message.
func keyIDs(keys []packaging.PublicKey) string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID()
	}
	return strings.Join(ids, " or ")
}
