package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/serve"
)

// TestInFlightCallOfADeadServeAnsweredHere (issue 45, finding 15): a
// command that reads through a running serve's Chroma, lent under its
// lease (`index status --verify`), and whose serve dies in the middle
// (killed: its Chroma goes with it) is answered here, once, on a private
// server of its own, instead of failing with exit 4. The serve is a
// stand-in on the data home's socket that lends a real Chroma through a
// proxy; at the first read of records the proxy closes every connection,
// the Chroma stops and the socket goes, as when serve is killed.
func TestInFlightCallOfADeadServeAnsweredHere(t *testing.T) {
	smallIndex(t)
	ctx := context.Background()
	data, err := config.ChromaDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	bin, _ := chroma.FindBin("", os.Getenv)
	srv, err := chroma.StartServer(ctx, chroma.ServerOptions{Bin: bin, DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })

	socket, err := config.ServeSocket(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var died atomic.Bool
	dead := make(chan struct{})
	var dieOnce sync.Once
	die := func() {
		dieOnce.Do(func() {
			died.Store(true)
			srv.Stop()
			ln.Close()
			close(dead)
		})
	}
	base, hc := chroma.HTTPClient(srv.URL, time.Minute)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = hc.Transport
	reads := 0
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/get") {
			reads++
			die()
		}
		if died.Load() {
			panic(http.ErrAbortHandler) // the connection closes, no answer
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)

	// serve: it holds another index (so the status is answered here), and
	// owns the data directory, whose Chroma it lends
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/health", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(serve.Health{OK: true, PID: os.Getpid(), Collection: "cmdai_linux_other", ChromaURL: proxy.URL, DataDir: data, Build: buildid.Self()})
	})
	leases := 0
	mux.HandleFunc("/v1/lease", func(w http.ResponseWriter, r *http.Request) {
		leases++
		json.NewEncoder(w).Encode(serve.Lease{ChromaURL: proxy.URL, DataDir: data})
		http.NewResponseController(w).Flush()
		select { // the lease lasts until the holder ends it, or serve dies
		case <-r.Context().Done():
		case <-dead:
		}
	})
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	code, out, errOut := runCLI(t, "index", "status", "--verify", "--distro", "debian-12")
	if code != 0 || !strings.Contains(out, "verified: all ") || !strings.Contains(out, "records match their authenticators") {
		t.Errorf("status --verify whose serve died mid-call: exit %d\n%s%s", code, out, errOut)
	}
	if leases != 1 || reads != 1 || !died.Load() {
		t.Errorf("%d leases, %d reads through serve's Chroma (died %v); want one each, then here", leases, reads, died.Load())
	}
}
