package guard

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "192.0.2.1:80", "example.com:80"} {
		if _, err := ListenTCP(addr); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: %v; want refused as not loopback", addr, err)
		}
	}
	if err := CheckListen("127.0.0.1"); err == nil || !strings.Contains(err.Error(), "127.0.0.1:PORT") {
		t.Errorf("no port: %v", err)
	}
	ln, err := ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// TestTokenFile: the first use makes a 0600 file of 64 random hex digits
// (created true), later ones read it back; a token others may read, a
// FIFO (which must not block) or an empty file is refused, saying what
// to do.
func TestTokenFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home") // does not exist yet
	path := filepath.Join(dir, "serve.token")
	tok, created, err := LoadOrCreateToken(path)
	if err != nil || !created || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok) {
		t.Fatalf("first use: %q %v %v; want a new 64-hex token", tok, created, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v; want mode 0600", fi.Mode(), err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("its new directory: %v %v; want mode 0700", fi.Mode(), err)
	}
	again, created, err := LoadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Errorf("second use: %q %v %v; want the same token, not made again", again, created, err)
	}
	other, _, _ := LoadOrCreateToken(filepath.Join(t.TempDir(), "serve.token"))
	if other == tok {
		t.Error("two homes got the same token")
	}
	os.Chmod(path, 0o644)
	if _, _, err := LoadOrCreateToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a token others may read: %v; want refused with chmod 600", err)
	}
	fifo := filepath.Join(t.TempDir(), "serve.token")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadToken(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO: %v; want refused", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO as the token blocks")
	}
	empty := filepath.Join(t.TempDir(), "serve.token")
	os.WriteFile(empty, []byte("\n"), 0o600)
	if _, err := ReadToken(empty); err == nil || !strings.Contains(err.Error(), "not one token") {
		t.Errorf("an empty token file: %v", err)
	}
}
