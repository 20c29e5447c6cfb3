package guard

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmdai/cmdai/internal/safefile"
)

// maxTokenFile bounds what ReadToken reads: a token is 64 hex digits.
const maxTokenFile = 4 << 10

// ReadToken reads the token kept at path. The file must be a regular file
// only its owner may read (mode 0600 or stricter): a token others can
// read authenticates nobody.
func ReadToken(path string) (string, error) {
	b, mode, err := safefile.ReadRegular(path, maxTokenFile)
	var notRegular *safefile.NotRegularError
	var tooLarge *safefile.TooLargeError
	switch {
	case errors.As(err, &notRegular):
		return "", fmt.Errorf("serve's token %s is not a regular file: remove it, and cmdai serve --listen makes a new one", path)
	case errors.As(err, &tooLarge):
		return "", fmt.Errorf("serve's token %s is not one token: remove it, and cmdai serve --listen makes a new one", path)
	case err != nil:
		return "", fmt.Errorf("read serve's token: %w", err)
	case mode.Perm()&0o077 != 0:
		return "", fmt.Errorf("serve's token %s may be read by others (mode %04o): run chmod 600 %s, or remove it for a new one", path, mode.Perm(), path)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("serve's token %s is not one token: remove it, and cmdai serve --listen makes a new one", path)
	}
	return tok, nil
}

// LoadOrCreateToken is the token at path, made there first when there is
// none (created true): 32 random bytes from crypto/rand in hex, written
// atomically with mode 0600 (its directory made 0700 if missing).
func LoadOrCreateToken(path string) (tok string, created bool, err error) {
	tok, err = ReadToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, fmt.Errorf("make serve's token: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", false, fmt.Errorf("make serve's token: %w", err)
	}
	tok = hex.EncodeToString(b)
	if err := safefile.WriteBytes(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", false, fmt.Errorf("make serve's token: %w", err)
	}
	return tok, true, nil
}
