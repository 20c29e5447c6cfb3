package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/internal/netwait"
)

// stallingServer sends the headers and the first cut bytes of its file,
// then goes silent (until the client gives up) on the first request; it
// serves ranges normally afterwards.
func stallingServer(t *testing.T, data []byte, cut int) *httptest.Server {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.WriteHeader(http.StatusOK)
			w.Write(data[:cut])
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second): // a bound, not a wait
			}
			return
		}
		http.ServeContent(w, r, "x.tar.gz", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFetchStalledBody: a server that stalls mid-body ends the fetch
// after the idle timeout with the URL, the bytes received and the kept
// partial file named; the next fetch resumes from there.
func TestFetchStalledBody(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	srv := stallingServer(t, data, 10000)
	dir := t.TempDir()
	src := Source{Base: srv.URL, IdleTimeout: 300 * time.Millisecond}

	done := make(chan error, 1)
	go func() { _, err := src.Fetch(context.Background(), "x.tar.gz", dir, nil); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Fetch still blocked 10 s after the server stalled")
	}
	if !errors.Is(err, netwait.ErrIdle) || !errors.Is(err, netwait.ErrNetwork) {
		t.Fatalf("err = %v, want an idle network error", err)
	}
	part := filepath.Join(dir, "x.tar.gz.part")
	for _, want := range []string{srv.URL + "/x.tar.gz", "no data for 300ms", fmt.Sprintf("after 10000 bytes of %d", len(data)), part, "run the same command again to resume"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if st, err := os.Stat(part); err != nil || st.Size() != 10000 {
		t.Fatalf("partial file: %v (want 10000 bytes kept)", err)
	}

	path, err := src.Fetch(context.Background(), "x.tar.gz", dir, nil)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Errorf("resumed file differs (%d bytes, want %d)", len(got), len(data))
	}
}

// TestIdleReaderKeepsSlowTransfers: a body that trickles (a byte more
// often than the timeout) is never cut, however long it takes in all.
func TestIdleReaderKeepsSlowTransfers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		for i := 0; i < 10; i++ {
			w.Write([]byte{'a'})
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond)
		}
	}))
	defer srv.Close()
	src := Source{Base: srv.URL, IdleTimeout: 250 * time.Millisecond}
	path, err := src.Fetch(context.Background(), "slow", t.TempDir(), nil)
	if err != nil {
		t.Fatalf("a slow but steady body was cut: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "aaaaaaaaaa" {
		t.Errorf("got %q", got)
	}
}

// TestFetchNoHeaders: a server that accepts the request and never
// answers is given up after the idle timeout too.
func TestFetchNoHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second): // a bound, not a wait
		}
	}))
	defer srv.Close()
	src := Source{Base: srv.URL, IdleTimeout: 300 * time.Millisecond}
	done := make(chan error, 1)
	go func() { _, err := src.Fetch(context.Background(), "x.tar.gz", t.TempDir(), nil); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, netwait.ErrNetwork) || !strings.Contains(err.Error(), srv.URL+"/x.tar.gz") {
			t.Errorf("err = %v, want a network error naming the URL", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Fetch still waiting for headers 10 s after a 300ms timeout")
	}
}
