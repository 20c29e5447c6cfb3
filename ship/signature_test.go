package ship

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship/release"
)

// releaseKey is a fresh minisign key pair: the trusted public half and a
// signer of a release directory's checksums.txt.
func releaseKey(t *testing.T, source string) ([]packaging.PublicKey, func(dir string)) {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return []packaging.PublicKey{{Key: pub, Source: source}}, func(dir string) {
		data, err := os.ReadFile(filepath.Join(dir, release.ChecksumsName))
		if err != nil {
			t.Fatal(err)
		}
		sig := minisign.SignWithComments(priv, data, "cmdai v1 indexes", "")
		if err := os.WriteFile(filepath.Join(dir, release.ChecksumsName+packaging.SignatureSuffix), sig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// signedMirror is a release directory holding distro's tarball and a
// checksums.txt listing it, signed with sign.
func signedMirror(t *testing.T, distro, content string, sign func(string)) release.Source {
	t.Helper()
	dir := t.TempDir()
	name := release.TarballName(distro)
	os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	os.WriteFile(filepath.Join(dir, release.ChecksumsName), []byte(sumOf(t, content)+"  "+name+"\n"), 0o644)
	if sign != nil {
		sign(dir)
	}
	return release.Source{Base: dir}
}

// A signed release: the sum comes from the signed checksums.txt, which is
// kept beside the download with its signature, so that an import checks
// it again (and an import that requires a signature takes it).
func TestFetchSigned(t *testing.T) {
	keys, sign := releaseKey(t, "test key")
	src := signedMirror(t, "debian-13", "a tarball", sign)
	dir := t.TempDir()
	got, err := Fetch(context.Background(), src, "debian-13", dir, Trust{Keys: keys}, nil)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got.Signed == nil || got.Signed.KeyID != keys[0].ID() || got.Signed.TrustedComment != "cmdai v1 indexes" || got.SHA256 != sumOf(t, "a tarball") {
		t.Fatalf("Fetch = %+v (signed %+v)", got, got.Signed)
	}
	b, err := VerifyBeside(got.Path, Trust{Keys: keys, Require: true})
	if err != nil || b.Signed == nil || b.Sums != filepath.Join(dir, release.ChecksumsName) {
		t.Fatalf("VerifyBeside of the download = %+v, %v", b, err)
	}
	// The same file with its signed sums but no key to check them: the
	// sums are still checked, and the note says why the signature is not.
	if b, err := VerifyBeside(got.Path, Trust{}); err != nil || b.Signed != nil || !strings.Contains(b.Unchecked, "--public-key") {
		t.Fatalf("VerifyBeside without a key = %+v, %v", b, err)
	}
}

// Whoever controls the mirror can rewrite the tarball and checksums.txt
// together, but not the signature: refused before the tarball is fetched.
func TestFetchRefusesTamperedRelease(t *testing.T) {
	keys, sign := releaseKey(t, "test key")
	src := signedMirror(t, "debian-13", "a tarball", sign)
	name := release.TarballName("debian-13")
	os.WriteFile(filepath.Join(src.Base, name), []byte("an evil tarball"), 0o644)
	os.WriteFile(filepath.Join(src.Base, release.ChecksumsName), []byte(sumOf(t, "an evil tarball")+"  "+name+"\n"), 0o644)
	os.WriteFile(filepath.Join(src.Base, name+packaging.ChecksumSuffix), []byte(sumOf(t, "an evil tarball")+"  "+name+"\n"), 0o644)
	dir := t.TempDir()
	_, err := Fetch(context.Background(), src, "debian-13", dir, Trust{Keys: keys, AllowUnsigned: true}, nil)
	if !errors.Is(err, ErrVerification) || !errors.Is(err, packaging.ErrBadSignature) || !strings.Contains(err.Error(), "changed after signing") {
		t.Fatalf("Fetch of a tampered release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
		t.Fatalf("the tampered tarball was fetched: %v", err)
	}

	// Only the tarball changed: the signed sum refuses it, and it is removed.
	src = signedMirror(t, "debian-13", "a tarball", sign)
	os.WriteFile(filepath.Join(src.Base, name), []byte("an evil tarball"), 0o644)
	if _, err := Fetch(context.Background(), src, "debian-13", dir, Trust{Keys: keys}, nil); !errors.Is(err, ErrVerification) || !errors.Is(err, packaging.ErrChecksum) {
		t.Fatalf("Fetch of a changed tarball: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
		t.Fatalf("the changed tarball was kept: %v", err)
	}

	// Signed, but by a key this cmdai does not trust.
	_, otherSign := releaseKey(t, "another key")
	src = signedMirror(t, "debian-13", "a tarball", otherSign)
	if _, err := Fetch(context.Background(), src, "debian-13", dir, Trust{Keys: keys}, nil); !errors.Is(err, packaging.ErrBadSignature) || !strings.Contains(err.Error(), "not a trusted release key") {
		t.Fatalf("Fetch of a release signed by another key: %v", err)
	}
}

// An unsigned location is refused when a signature is expected (a key is
// trusted), with the way out named; --allow-unsigned takes it, and the
// signed sums an earlier download left beside the file are dropped.
func TestFetchUnsignedWhenExpected(t *testing.T) {
	keys, sign := releaseKey(t, "pinned in this build")
	dir := t.TempDir()
	if _, err := Fetch(context.Background(), signedMirror(t, "debian-13", "old", sign), "debian-13", dir, Trust{Keys: keys}, nil); err != nil {
		t.Fatal(err)
	}
	src := signedMirror(t, "debian-13", "a tarball", nil)
	_, err := Fetch(context.Background(), src, "debian-13", dir, Trust{Keys: keys}, nil)
	if !errors.Is(err, ErrVerification) || !errors.Is(err, packaging.ErrUnsigned) || !strings.Contains(err.Error(), "--allow-unsigned") || !strings.Contains(err.Error(), keys[0].ID()) {
		t.Fatalf("Fetch of an unsigned release: %v", err)
	}
	got, err := Fetch(context.Background(), src, "debian-13", dir, Trust{Keys: keys, AllowUnsigned: true}, nil)
	if err != nil || got.Signed != nil || got.Unsigned == "" {
		t.Fatalf("Fetch --allow-unsigned = %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, release.ChecksumsName+packaging.SignatureSuffix)); !os.IsNotExist(err) {
		t.Fatalf("the earlier download's signed sums stayed beside the new file: %v", err)
	}
	if b, err := VerifyBeside(got.Path, Trust{Keys: keys}); err != nil || b.Signed != nil {
		t.Fatalf("VerifyBeside of an unsigned download = %+v, %v", b, err)
	}
	if _, err := VerifyBeside(got.Path, Trust{Keys: keys, Require: true}); !errors.Is(err, ErrVerification) || !errors.Is(err, packaging.ErrUnsigned) || !strings.Contains(err.Error(), "checksums.txt.minisig") {
		t.Fatalf("VerifyBeside requiring a signature of an unsigned file: %v", err)
	}
}

// An import beside a release's signed sums: a tarball other than the one
// signed is refused, and so is a signature that does not verify.
func TestVerifyBesideSigned(t *testing.T) {
	keys, sign := releaseKey(t, "test key")
	src := signedMirror(t, "debian-13", "a tarball", sign)
	path := filepath.Join(src.Base, release.TarballName("debian-13"))
	if b, err := VerifyBeside(path, Trust{Keys: keys}); err != nil || b.Signed == nil {
		t.Fatalf("VerifyBeside = %+v, %v", b, err)
	}
	os.WriteFile(path, []byte("an evil tarball"), 0o644)
	if _, err := VerifyBeside(path, Trust{Keys: keys}); !errors.Is(err, ErrVerification) || !errors.Is(err, packaging.ErrChecksum) {
		t.Fatalf("a changed tarball beside signed sums: %v", err)
	}
	list := filepath.Join(src.Base, release.ChecksumsName)
	os.WriteFile(list, []byte(sumOf(t, "an evil tarball")+"  "+release.TarballName("debian-13")+"\n"), 0o644)
	if _, err := VerifyBeside(path, Trust{Keys: keys}); !errors.Is(err, ErrVerification) || !errors.Is(err, packaging.ErrBadSignature) {
		t.Fatalf("rewritten sums beside their old signature: %v", err)
	}
	other := filepath.Join(src.Base, "chroma-index-fedora-43.tar.gz")
	os.WriteFile(other, []byte("x"), 0o644)
	os.WriteFile(list, []byte(sumOf(t, "an evil tarball")+"  "+release.TarballName("debian-13")+"\n"), 0o644)
	sign(src.Base)
	if _, err := VerifyBeside(other, Trust{Keys: keys}); !errors.Is(err, ErrVerification) || !strings.Contains(err.Error(), "lists no chroma-index-fedora-43.tar.gz") {
		t.Fatalf("a tarball the signed sums do not list: %v", err)
	}
}
