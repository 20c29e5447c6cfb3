package chroma

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "chroma")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A chroma of another release is refused with the pin and the fix, at
// once: StartServer does not wait for a heartbeat it would never get.
func TestUnsupportedVersion(t *testing.T) {
	bin := script(t, "case \"$1\" in --version) echo 'chroma 0.4.24';; *) sleep 60;; esac\n")
	start := time.Now()
	_, err := StartServer(context.Background(), ServerOptions{Bin: bin, DataDir: t.TempDir()})
	if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "0.4.24") || !strings.Contains(err.Error(), "chromadb=="+ChromaVersion) {
		t.Errorf("StartServer(chroma 0.4.24) = %v; want ErrUnsupportedVersion naming both versions and the fix", err)
	}
	if d := time.Since(start); d > VersionTimeout {
		t.Errorf("took %s", d)
	}
	if v, err := BinVersion(context.Background(), script(t, "echo 'chroma 1.4.1'\n")); err != nil || v != "1.4.1" {
		t.Errorf("BinVersion(1.4.1) = %q, %v", v, err)
	}
	// One that hangs is given up on.
	VersionTimeout = time.Second
	defer func() { VersionTimeout = 15 * time.Second }()
	if _, err := BinVersion(context.Background(), script(t, "sleep 60\n")); !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("BinVersion(hangs) = %v", err)
	}
	// No version printed: not known to be wrong.
	if _, err := BinVersion(context.Background(), script(t, "exit 3\n")); err == nil || errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("BinVersion(silent) = %v; want an error that is not ErrUnsupportedVersion", err)
	}
}
