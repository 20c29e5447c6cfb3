package chroma

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIsNoSpace: Chroma's ways of saying the disk is full are recognised;
// other failures are not.
func TestIsNoSpace(t *testing.T) {
	for _, msg := range []string{
		`error sending request: Error (500) InternalError: Error executing plan: Error sending backfill request to compactor: Failed to apply logs: No space left on device (os error 28)`,
		`Error (500) InternalError: Query error: Database error: error returned from database: (code: 13) database or disk is full`,
		`writing segment: No space left on device (os error 28)`,
	} {
		if !IsNoSpace(errors.New(msg)) {
			t.Errorf("not recognised as a full disk: %s", msg)
		}
	}
	for _, msg := range []string{`error sending request: EOF`, `Error (404) NotFoundError: Collection [x] does not exist`, `connection refused`, `Error (500) InternalError: Failed to run compaction: error writing segment`} {
		if IsNoSpace(errors.New(msg)) {
			t.Errorf("taken for a full disk: %s", msg)
		}
	}
	if !IsCompactionFailure(errors.New(`Error (500) InternalError: Error executing plan: Error sending backfill request to compactor: Failed to apply logs`)) || IsCompactionFailure(errors.New("EOF")) {
		t.Error("compaction failures misread")
	}
}

// TestTailFileStripsEscapes: a log tail prints as plain text.
func TestTailFileStripsEscapes(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	os.WriteFile(log, []byte("first\n\x1b[2m2026-01-01T00:00:00Z\x1b[0m \x1b[32m INFO\x1b[0m started\r\n\x1b]8;;http://x\x07link\x1b]8;;\x07 done\x07\n"), 0o644)
	got := tailFile(log, 2)
	if want := "  2026-01-01T00:00:00Z  INFO started\n  link done"; got != want {
		t.Errorf("tail\n got %q\nwant %q", got, want)
	}
}

// TestConnectStalledServer: a server that accepts and never answers is
// given up within the configured timeout, not after minutes.
func TestConnectStalledServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second): // a bound, not a wait
		}
	}))
	defer srv.Close()
	done := make(chan error, 1)
	go func() {
		_, err := Connect(context.Background(), Config{URL: srv.URL, Timeout: 500 * time.Millisecond})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnreachable) {
			t.Errorf("err = %v, want ErrUnreachable", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Connect still waiting 5 s after a 500ms timeout")
	}
}

// TestServerLost: a private server killed from outside is reported as
// stopped, with the end of its log and no escape sequences; one that
// runs is not.
func TestServerLost(t *testing.T) {
	dir := t.TempDir()
	s := startTestServer(t, dir)
	if err := s.Lost(); err != nil {
		t.Fatalf("a running server reported lost: %v", err)
	}
	syscall.Kill(s.PID(), syscall.SIGKILL)
	err := s.Lost()
	if !errors.Is(err, ErrServerStopped) {
		t.Fatalf("err = %v, want ErrServerStopped", err)
	}
	msg := err.Error()
	for _, want := range []string{"the Chroma server stopped (signal: killed)", "last lines of " + filepath.Join(dir, "cmdai-chroma.log"), "run the command again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message does not say %q:\n%s", want, msg)
		}
	}
	if strings.ContainsAny(msg, "\x1b\r") {
		t.Errorf("message holds escape sequences: %q", msg)
	}
	if strings.Count(msg, "\n") < 3 {
		t.Errorf("message holds no log lines:\n%s", msg)
	}
}
