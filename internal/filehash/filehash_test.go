package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestSHA256: a file's hash and size; a missing file is an error.
func TestSHA256(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := []byte("cmdai\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(data)
	if sum, n, err := SHA256(path); err != nil || sum != hex.EncodeToString(want[:]) || n != int64(len(data)) {
		t.Errorf("SHA256 = %q, %d, %v", sum, n, err)
	}
	if _, _, err := SHA256(path + ".missing"); err == nil {
		t.Error("a missing file hashed")
	}
}
