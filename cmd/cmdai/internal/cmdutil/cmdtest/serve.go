package cmdtest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
	"github.com/cmdai/cmdai/serve"
)

// Serve is a running serve for a unit test: it listens on a Unix socket,
// holds collection, is of the test binary's build, and answers every call with a result from "serve"
// (a query's and explain's Collection, a doc's Description, a status's
// Holder), counting the calls it answered.
type Serve struct {
	Socket string
	// Answered counts the queries, docs, explain and status calls.
	Answered atomic.Int64
	// DieMidAnswer: each call gets the start of an answer, then the
	// connection closes, as when serve is killed while it writes one
	// (Died counts them).
	DieMidAnswer atomic.Bool
	Died         atomic.Int64

	mu     sync.Mutex
	health serve.Health
}

// SetHealth changes what s says of itself (its build: this test
// binary's by default).
func (s *Serve) SetHealth(edit func(h *serve.Health)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	edit(&s.health)
}

// NewServe starts a Serve holding collection until the test ends.
func NewServe(t *testing.T, collection string) *Serve {
	t.Helper()
	dir, err := os.MkdirTemp("", "cmdai-serve") // a socket path must be short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Serve{Socket: filepath.Join(dir, "s"), health: serve.Health{OK: true, Collection: collection, Build: buildid.Self()}}
	ln, err := net.Listen("unix", s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	reply := func(w http.ResponseWriter, v any) {
		if s.DieMidAnswer.Load() {
			s.Died.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"schema_version":1,"request":"`))
			http.NewResponseController(w).Flush()
			panic(http.ErrAbortHandler) // the connection closes mid-answer
		}
		s.Answered.Add(1)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/health", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		h := s.health
		s.mu.Unlock()
		json.NewEncoder(w).Encode(h)
	})
	mux.HandleFunc("/v1/query", func(w http.ResponseWriter, r *http.Request) {
		var q answer.QueryRequest
		json.NewDecoder(r.Body).Decode(&q)
		reply(w, answer.QueryResult{Request: q.Request, Collection: "serve"})
	})
	mux.HandleFunc("/v1/explain", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, answer.ExplainResult{Collection: "serve"})
	})
	mux.HandleFunc("/v1/docs", func(w http.ResponseWriter, r *http.Request) {
		reply(w, search.CommandDoc{CommandHit: shown.CommandHit{Command: r.URL.Query().Get("command"), Description: "serve"}})
	})
	mux.HandleFunc("/v1/status", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, answer.IndexStatus{Current: collection, Collections: []builder.CollectionStatus{{Name: collection, Current: true}}})
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Dial is a Factory's ServeClient that reaches s.
func (s *Serve) Dial(ctx context.Context) (*serve.Client, bool) {
	c, err := serve.Dial(ctx, s.Socket)
	return c, err == nil
}
