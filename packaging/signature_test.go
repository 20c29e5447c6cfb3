package packaging

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/internal/testmode"
)

// minisignTool makes a key pair with the real minisign (Debian's package,
// the signer the release workflow runs) and returns a signer of files.
func minisignTool(t *testing.T) (pub string, sign func(path, comment string, legacy bool)) {
	t.Helper()
	testmode.Heavy(t, "the minisign tool (scripts/install/install-test-deps.sh)")
	bin, err := exec.LookPath("minisign")
	if err != nil {
		t.Fatal("minisign is not installed: scripts/install/install-test-deps.sh (make test-deps) installs it")
	}
	dir := t.TempDir()
	pub, sec := filepath.Join(dir, "release.pub"), filepath.Join(dir, "release.key")
	if out, err := exec.Command(bin, "-G", "-W", "-p", pub, "-s", sec).CombinedOutput(); err != nil {
		t.Fatalf("minisign -G: %v: %s", err, out)
	}
	return pub, func(path, comment string, legacy bool) {
		args := []string{"-S", "-s", sec, "-m", path, "-t", comment}
		if legacy {
			args = append(args, "-l")
		}
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("minisign -S: %v: %s", err, out)
		}
	}
}

// A signature the minisign tool makes is accepted with its public key
// file, in both of its formats (prehashed, the default, and legacy), and
// its trusted comment comes back; changed data is refused.
func TestVerifySignatureOfTheMinisignTool(t *testing.T) {
	pubFile, sign := minisignTool(t)
	text, err := os.ReadFile(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParsePublicKeys(text, pubFile)
	if err != nil || len(keys) != 1 {
		t.Fatalf("ParsePublicKeys(%q) = %v, %v", text, keys, err)
	}
	// minisign names the key in the file's comment: the same ID as ours.
	if !strings.Contains(string(text), "minisign public key "+keys[0].ID()) {
		t.Fatalf("key ID %s is not the one minisign wrote: %q", keys[0].ID(), text)
	}
	for _, legacy := range []bool{false, true} {
		sums := filepath.Join(t.TempDir(), "checksums.txt")
		data := []byte(strings.Repeat("ab", 32) + "  chroma-index-debian-13.tar.gz\n")
		if err := os.WriteFile(sums, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sign(sums, "cmdai v9.9.9 indexes", legacy)
		sig, err := os.ReadFile(sums + SignatureSuffix)
		if err != nil {
			t.Fatal(err)
		}
		got, err := VerifySignature(sums, data, sig, keys)
		if err != nil || got.KeyID != keys[0].ID() || got.TrustedComment != "cmdai v9.9.9 indexes" {
			t.Fatalf("legacy=%v: VerifySignature = %+v, %v", legacy, got, err)
		}
		changed := []byte(strings.Repeat("cd", 32) + "  chroma-index-debian-13.tar.gz\n")
		if _, err := VerifySignature(sums, changed, sig, keys); !errors.Is(err, ErrBadSignature) || !strings.Contains(err.Error(), "changed after signing") {
			t.Fatalf("legacy=%v: changed data: %v", legacy, err)
		}
	}
}

// A signature by a key that is not trusted, a garbage signature and a
// check without any key are refused, each saying what to do.
func TestVerifySignatureRefuses(t *testing.T) {
	_, sign := minisignTool(t)
	otherFile, _ := minisignTool(t)
	other, err := os.ReadFile(otherFile)
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := ParsePublicKeys(other, "the site's key")
	if err != nil {
		t.Fatal(err)
	}
	sums := filepath.Join(t.TempDir(), "checksums.txt")
	data := []byte("x\n")
	os.WriteFile(sums, data, 0o644)
	sign(sums, "c", false)
	sig, _ := os.ReadFile(sums + SignatureSuffix)

	_, err = VerifySignature(sums, data, sig, trusted)
	if !errors.Is(err, ErrBadSignature) || !strings.Contains(err.Error(), "not a trusted release key") || !strings.Contains(err.Error(), "the site's key") {
		t.Fatalf("signed by an untrusted key: %v", err)
	}
	if _, err := VerifySignature(sums, data, []byte("untrusted comment: x\nnot base64\n"), trusted); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("garbage signature: %v", err)
	}
	if _, err := VerifySignature(sums, data, sig, nil); err == nil || !strings.Contains(err.Error(), "--public-key") {
		t.Fatalf("no key: %v", err)
	}
}

func TestParsePublicKeys(t *testing.T) {
	// The key alone, as `minisign -P` takes it, with a comment line.
	keys, err := ParsePublicKeys([]byte("# a site key\nRWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3\n"), "test")
	if err != nil || len(keys) != 1 || keys[0].ID() != "E7620F1842B4E81F" {
		t.Fatalf("ParsePublicKeys = %+v, %v", keys, err)
	}
	// minisign prints IDs without leading zeros ("6EDBD9379FE667A").
	if got := KeyID(0x06EDBD9379FE667A); got != "6EDBD9379FE667A" {
		t.Fatalf("KeyID = %s", got)
	}
	if _, err := ParsePublicKeys([]byte("RWQnot-a-key\n"), "f.pub"); err == nil || !strings.Contains(err.Error(), "f.pub, line 1") {
		t.Fatalf("a bad key: %v", err)
	}
}

// The key file pinned in the build must always parse: a maintainer's bad
// paste would otherwise break every download.
func TestPinnedKeysParse(t *testing.T) {
	if _, err := PinnedKeys(); err != nil {
		t.Fatal(err)
	}
}
