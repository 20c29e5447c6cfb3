package ship

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cmdai/cmdai/fsx"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/release"
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

// Fetched is a downloaded tarball whose published checksum it matched.
type Fetched struct {
	Path   string // the tarball, with Path+packaging.ChecksumSuffix beside it
	SHA256 string
}

// Fetch downloads distroID's tarball from src into dir and verifies it.
// The published checksum comes first: a location that publishes none is
// refused before a byte of the tarball is fetched. A cut transfer is kept
// for the next call to resume; a file that fails verification is removed,
// so that the next call fetches it anew instead of resuming a wrong one.
// Failures to reach the location wrap netx.ErrNetwork.
func Fetch(ctx context.Context, src release.Source, distroID, dir string, progress release.Progress) (Fetched, error) {
	name := release.TarballName(distroID)
	want, err := src.Checksums(ctx, name)
	switch {
	case errors.Is(err, release.ErrNotFound):
		return Fetched{}, fmt.Errorf("no index for %s at %s: %w (`cmdai index download --list --base-url %s` shows what it offers)", distroID, src.Base, err, src.Base)
	case errors.Is(err, release.ErrNoChecksums):
		return Fetched{}, verification(err)
	case err != nil:
		return Fetched{}, err
	}
	path, err := src.Fetch(ctx, name, dir, progress)
	if errors.Is(err, release.ErrNotFound) {
		return Fetched{}, fmt.Errorf("no index for %s at %s: %w (`cmdai index download --list` shows what there is)", distroID, src.Base, err)
	}
	if err != nil {
		return Fetched{}, err
	}
	sums := path + packaging.ChecksumSuffix
	if err := fsx.WriteBytes(sums, []byte(want+"  "+name+"\n"), 0o644); err != nil {
		return Fetched{}, err
	}
	if err := packaging.VerifyFile(path, sums); err != nil {
		os.Remove(path)
		os.Remove(sums)
		return Fetched{}, verification(err)
	}
	return Fetched{Path: path, SHA256: want}, nil
}
