package packaging

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"aead.dev/minisign"
)

// A release's checksums file is signed with minisign (Ed25519): the
// signature stands beside it as checksums.txt.minisig, and the public key
// that checks it is pinned in this build (release-key.pub). Minisign was
// chosen over keyless cosign because a check needs nothing but that one
// key: no certificate chain, transparency log or trust root that must be
// fetched and kept current, so an air-gapped site verifies offline, with
// cmdai or with the `minisign` tool alone.

// SignatureSuffix names the minisign signature beside a signed file.
const SignatureSuffix = ".minisig"

// releaseKeyFile is the project's release public key, as `minisign -G`
// writes it (or a file of comments only, while none has been made: see
// scripts/release/release-key.sh).
//
//go:embed release-key.pub
var releaseKeyFile []byte

// PublicKey is a minisign public key with where it came from.
type PublicKey struct {
	Key    minisign.PublicKey
	Source string // "pinned in this build", or the file or variable it was read from
}

// ID is the key's minisign ID, as `minisign` prints it.
func (k PublicKey) ID() string { return KeyID(k.Key.ID()) }

// KeyID formats a minisign key ID as `minisign` prints it: upper-case
// hex without leading zeros (its "%" PRIX64), so that the ID in a .pub
// file's comment and in cmdai's messages read the same.
func KeyID(id uint64) string { return fmt.Sprintf("%X", id) }

// PinnedKeys returns the release keys pinned in this build (none until the
// project's key is made).
func PinnedKeys() ([]PublicKey, error) {
	keys, err := ParsePublicKeys(releaseKeyFile, "pinned in this build")
	if err != nil {
		return nil, fmt.Errorf("the release key pinned in this build is unreadable: %w", err)
	}
	return keys, nil
}

// ParsePublicKeys reads minisign public keys from text: a .pub file as
// `minisign -G` writes it, or bare base64 keys (as `minisign -P` takes
// them), one a line; "untrusted comment:" and "#" lines are skipped.
func ParsePublicKeys(text []byte, source string) ([]PublicKey, error) {
	var keys []PublicKey
	for n, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "untrusted comment:") {
			continue
		}
		var k minisign.PublicKey
		if err := k.UnmarshalText([]byte(line)); err != nil {
			return nil, fmt.Errorf("%s, line %d: not a minisign public key (want the base64 line of a minisign .pub file, e.g. RWQ…): %w", source, n+1, err)
		}
		keys = append(keys, PublicKey{Key: k, Source: source})
	}
	return keys, nil
}

// ErrUnsigned means a file that had to be signed comes without a signature.
var ErrUnsigned = errors.New("not signed")

// ErrBadSignature means a signature does not verify with any trusted key.
var ErrBadSignature = errors.New("bad signature")

// Signed is what a verified signature says.
type Signed struct {
	KeyID          string // the key that verified it
	TrustedComment string // signed with the file: names the release
}

// VerifySignature checks that sig is a minisign signature of data by one
// of keys. name is the signed file's name, for messages.
func VerifySignature(name string, data, sig []byte, keys []PublicKey) (Signed, error) {
	if len(keys) == 0 {
		return Signed{}, fmt.Errorf("%s is signed, but no release key is known to check it with: pass --public-key with the release's minisign public key", name)
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return Signed{}, fmt.Errorf("%w: %s%s is not a minisign signature (%v): the release location is damaged or tampered with", ErrBadSignature, name, SignatureSuffix, err)
	}
	for _, k := range keys {
		if minisign.Verify(k.Key, data, sig) {
			return Signed{KeyID: k.ID(), TrustedComment: s.TrustedComment}, nil
		}
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID() + " (" + k.Source + ")"
	}
	if !hasKeyID(keys, s.KeyID) {
		return Signed{}, fmt.Errorf("%w: %s is signed by key %s, which is not a trusted release key (trusted: %s): refusing it; if you made that release yourself, pass its public key with --public-key",
			ErrBadSignature, name, KeyID(s.KeyID), strings.Join(ids, ", "))
	}
	return Signed{}, fmt.Errorf("%w: %s does not match its signature %s%s by key %s: it was changed after signing (tampered with, or damaged); refusing it",
		ErrBadSignature, name, name, SignatureSuffix, KeyID(s.KeyID))
}

func hasKeyID(keys []PublicKey, id uint64) bool {
	for _, k := range keys {
		if k.Key.ID() == id {
			return true
		}
	}
	return false
}
