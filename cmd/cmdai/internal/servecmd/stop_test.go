//go:build linux

package servecmd

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// fakeServe answers GET /v1/health on a socket with pid, whatever
// process that is: a serve that lies, or someone else's socket.
func fakeServe(t *testing.T, pid int) string {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"pid":%d,"collection":"c","chroma_url":"http://127.0.0.1:1","writing":false}`, pid)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return socket
}

// TestStopSignalsOnlyTheSocketsOwnProcess: serve --stop asks the kernel
// who listens (SO_PEERCRED); a health that names another pid (here a
// `sleep` of ours, which a hostile socket could name) is refused and
// that process lives on.
func TestStopSignalsOnlyTheSocketsOwnProcess(t *testing.T) {
	if got, err := cmdutil.SocketPeer(fakeServe(t, 1)); err != nil || got != os.Getpid() {
		t.Errorf("socketPeer = %d, %v; want this process, %d", got, err, os.Getpid())
	}

	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	out := &bytes.Buffer{}
	opts := &ServeOptions{Factory: cmdutil.NewFactory(&cmdutil.IOStreams{Out: out, ErrOut: out}, os.Getenv, "test"), Socket: fakeServe(t, victim.Process.Pid)}
	err := RunStop(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("says it is pid %d: not stopped", victim.Process.Pid)) {
		t.Errorf("RunStop with a health naming another process: %v; out %q", err, out)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process the health named was signalled: %v", err)
	}
}
