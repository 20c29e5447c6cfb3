package ship

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship/release"
)

// mirror is a release directory holding the tarball for distro with the
// given content and, unless sum is "", its .sha256 saying sum.
func mirror(t *testing.T, distro, content, sum string) release.Source {
	t.Helper()
	dir := t.TempDir()
	name := release.TarballName(distro)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum != "" {
		if err := os.WriteFile(filepath.Join(dir, name+packaging.ChecksumSuffix), []byte(sum+"  "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return release.Source{Base: dir}
}

// sumOf is the sha256 of content, as packaging computes it.
func sumOf(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, _, err := packaging.FileSHA256(p)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestFetchVerifies(t *testing.T) {
	src := mirror(t, "debian-12", "a tarball", sumOf(t, "a tarball"))
	dir := t.TempDir()
	got, err := Fetch(context.Background(), src, "debian-12", dir, Trust{}, nil)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got.Path != filepath.Join(dir, release.TarballName("debian-12")) || got.SHA256 != sumOf(t, "a tarball") {
		t.Fatalf("Fetch = %+v", got)
	}
	// The checksum file beside it is what `index import` verifies again.
	if _, err := VerifyBeside(got.Path, Trust{}); err != nil {
		t.Fatalf("VerifyBeside after Fetch: %v", err)
	}
}

// A file that does not match its published sum is refused as a
// verification failure and removed, so the next run fetches it anew.
func TestFetchRemovesABadFile(t *testing.T) {
	src := mirror(t, "debian-12", "a tampered tarball", sumOf(t, "a tarball"))
	dir := t.TempDir()
	_, err := Fetch(context.Background(), src, "debian-12", dir, Trust{}, nil)
	if !errors.Is(err, ErrVerification) {
		t.Fatalf("Fetch of a bad file: %v, want ErrVerification", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Fatalf("a bad download left %v in %s", left, dir)
	}
}

// A location that publishes no checksum is refused before the tarball is
// fetched.
func TestFetchRefusesNoChecksum(t *testing.T) {
	src := mirror(t, "debian-12", "a tarball", "")
	dir := t.TempDir()
	_, err := Fetch(context.Background(), src, "debian-12", dir, Trust{}, nil)
	if !errors.Is(err, ErrVerification) || !errors.Is(err, release.ErrNoChecksums) {
		t.Fatalf("Fetch without a checksum: %v, want ErrVerification and release.ErrNoChecksums", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("fetched %v although no checksum is published", left)
	}
}

// A distribution the location does not offer is no verification failure
// (exit 1, not 5), and says how to see what there is.
func TestFetchNotOffered(t *testing.T) {
	src := mirror(t, "debian-12", "a tarball", sumOf(t, "a tarball"))
	list := sumOf(t, "a tarball") + "  " + release.TarballName("debian-12") + "\n"
	if err := os.WriteFile(filepath.Join(src.Base, release.ChecksumsName), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Fetch(context.Background(), src, "fedora-40", t.TempDir(), Trust{}, nil)
	if !errors.Is(err, release.ErrNotFound) || errors.Is(err, ErrVerification) || !strings.Contains(err.Error(), "--list") {
		t.Fatalf("Fetch of a distribution not offered: %v", err)
	}
}

// VerifyBeside: a checksum file that does not match marks the error as a
// verification failure without changing its message.
func TestVerifyBesideMismatch(t *testing.T) {
	src := mirror(t, "debian-12", "a tampered tarball", sumOf(t, "a tarball"))
	path := filepath.Join(src.Base, release.TarballName("debian-12"))
	b, err := VerifyBeside(path, Trust{})
	if b.Sums != path+packaging.ChecksumSuffix || !errors.Is(err, ErrVerification) {
		t.Fatalf("VerifyBeside = %+v, %v", b, err)
	}
	if want := packaging.VerifyFile(path, b.Sums); err.Error() != want.Error() {
		t.Fatalf("message %q, want packaging's %q", err, want)
	}
	if b, err := VerifyBeside(filepath.Join(t.TempDir(), "x.tar.gz"), Trust{}); err == nil || b.Sums != "" {
		t.Fatalf("VerifyBeside of a missing file = %+v, %v", b, err)
	}
}
