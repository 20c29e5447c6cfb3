//go:build unix

package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A socket another user made where ours would be (a shared /tmp, where a
// long data root's socket goes) is never asked: a process of theirs
// answering health like a serve could feed the assistant anything. Here
// it answers health; the client refuses it by its owner before a byte.
func TestDialRefusesAnotherUsersSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test gives a socket to another user: run it as root (make test does)")
	}
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Bool
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(true)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true,"pid":1,"collection":"cmdai_linux_debian-12"}`))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	c, err := Dial(context.Background(), socket)
	if err != nil {
		t.Fatalf("our own socket: %v", err)
	}
	c.Close()
	asked.Store(false)
	if err := os.Lchown(socket, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	_, err = Dial(context.Background(), socket)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "belongs to uid 4321") {
		t.Errorf("another user's socket: %v, want ErrNotRunning naming uid 4321", err)
	}
	if asked.Load() {
		t.Error("another user's socket was asked for its health")
	}
}
