package cmdutil

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// here is the Answerer of this process in these tests: it answers
// every call with a result that names it, and counts them.
type here struct{ calls int }

func (h *here) Query(context.Context, answer.QueryRequest) (answer.QueryResult, error) {
	h.calls++
	return answer.QueryResult{Collection: "here"}, nil
}

func (h *here) Docs(context.Context, answer.DocsRequest) (search.CommandDoc, error) {
	h.calls++
	return search.CommandDoc{}, nil
}

func (h *here) Explain(context.Context, answer.ExplainRequest) (answer.ExplainResult, error) {
	h.calls++
	return answer.ExplainResult{Collection: "here"}, nil
}

func (h *here) Status(context.Context, answer.StatusRequest) (answer.IndexStatus, error) {
	h.calls++
	return answer.IndexStatus{Current: "here"}, nil
}

// fakeServe is a serve on a unix socket holding the index of debian-12:
// it answers a query for "other" as serve does one for an index it does
// not hold (421), one for "broken" with an error answer of exit code 3,
// and the others with a result from "serve". It returns the client
// function ServeOrHere dials with, which counts its dials.
func fakeServe(t *testing.T, dials *int) func(context.Context) (*serve.Client, bool) {
	t.Helper()
	dir, err := os.MkdirTemp("", "cmdai-serve") // a socket path must be short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	reply := func(w http.ResponseWriter, status int, v any) {
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/health", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 200, serve.Health{OK: true, Collection: "cmdai_linux_debian-12", Build: buildid.Self()})
	})
	mux.HandleFunc("/v1/query", func(w http.ResponseWriter, r *http.Request) {
		var q answer.QueryRequest
		json.NewDecoder(r.Body).Decode(&q)
		switch q.Request {
		case "other":
			reply(w, http.StatusMisdirectedRequest, jsonout.Error{Error: "serve holds another index", ExitCode: 1})
		case "broken":
			reply(w, http.StatusNotFound, jsonout.Error{Error: "no index cmdai_linux_debian-12: build it with `cmdai index init`", ExitCode: ExitNoIndex})
		default:
			reply(w, 200, answer.QueryResult{Request: q.Request, Collection: "serve"})
		}
	})
	mux.HandleFunc("/v1/explain", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 200, answer.ExplainResult{Collection: "serve"})
	})
	mux.HandleFunc("/v1/status", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, answer.IndexStatus{Current: "serve " + r.URL.Query().Get("path")})
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return func(ctx context.Context) (*serve.Client, bool) {
		*dials++
		c, err := serve.Dial(ctx, socket)
		return c, err == nil
	}
}

// TestServeOrHere: a running serve answers unless the command keeps the
// call here (Local) or the request is beyond serve's limits (no dial
// then); a request for an index serve does not hold is answered here;
// serve's error answers keep their message and exit code.
func TestServeOrHere(t *testing.T) {
	ctx := context.Background()
	var dials int
	h := &here{}
	f := &Factory{ServeClient: fakeServe(t, &dials)}
	a := f.ServeOrHere(h, false, AutoServeOptions{})
	res, err := a.Query(ctx, answer.QueryRequest{Request: "count lines", K: 5})
	if err != nil || res.Collection != "serve" || res.Request != "count lines" || h.calls != 0 || dials != 1 {
		t.Fatalf("query: %+v %v (here %d, dials %d); want serve's answer", res, err, h.calls, dials)
	}
	if res, err := a.Query(ctx, answer.QueryRequest{Request: "other", K: 5}); err != nil || res.Collection != "here" || h.calls != 1 {
		t.Errorf("another index: %+v %v; want here's answer", res, err)
	}
	_, err = a.Query(ctx, answer.QueryRequest{Request: "broken", K: 5})
	if err == nil || err.Error() != "no index cmdai_linux_debian-12: build it with `cmdai index init`" || ExitCode(err) != ExitNoIndex || h.calls != 1 {
		t.Errorf("serve's error: %v (exit %d); want its message and exit 3", err, ExitCode(err))
	}
	if res, err := a.Explain(ctx, answer.ExplainRequest{Line: "wc -l"}); err != nil || res.Collection != "serve" {
		t.Errorf("explain: %+v %v; want serve's answer", res, err)
	}
	dials, h.calls = 0, 0
	for _, q := range []answer.QueryRequest{{Request: "x", K: serve.MaxK + 1}, {Request: strings.Repeat("x", serve.MaxRequestBytes+1), K: 5}} {
		if res, _ := a.Query(ctx, q); res.Collection != "here" {
			t.Errorf("k %d, %d bytes: answered by %s; want here", q.K, len(q.Request), res.Collection)
		}
	}
	for _, line := range []string{"wc \xff", strings.Repeat("x", explain.MaxLine+1)} {
		if res, _ := a.Explain(ctx, answer.ExplainRequest{Line: line}); res.Collection != "here" {
			t.Errorf("line of %d bytes: answered by %s; want here", len(line), res.Collection)
		}
	}
	if dials != 0 || h.calls != 4 {
		t.Errorf("beyond serve's limits: %d dials, %d here; want 0 and 4", dials, h.calls)
	}
	a = f.ServeOrHere(h, true, AutoServeOptions{})
	if res, _ := a.Query(ctx, answer.QueryRequest{Request: "count lines", K: 5}); res.Collection != "here" || dials != 0 {
		t.Errorf("local: answered by %s after %d dials; want here, none", res.Collection, dials)
	}
	none := (&Factory{ServeClient: func(context.Context) (*serve.Client, bool) { return nil, false }}).ServeOrHere(h, false, AutoServeOptions{})
	if st, _ := none.Status(ctx, answer.StatusRequest{}); st.Current != "here" {
		t.Errorf("no serve: status from %s; want here", st.Current)
	}
}

// TestServeOrHereStatus: serve tells the status of the distribution it
// holds (any when none is named, with the caller's environment), no
// other.
func TestServeOrHereStatus(t *testing.T) {
	ctx := context.Background()
	var dials int
	h := &here{}
	f := &Factory{ServeClient: fakeServe(t, &dials)}
	env := &answer.ScanEnv{Path: "/opt/bin"}
	for _, c := range []struct{ distro, want string }{{"", "serve /opt/bin"}, {"debian-12", "serve /opt/bin"}, {"fedora-40", "here"}, {"Not An ID!", "here"}} {
		a := f.ServeOrHere(h, false, AutoServeOptions{Distro: c.distro})
		st, err := a.Status(ctx, answer.StatusRequest{Env: env})
		if err != nil || st.Current != c.want {
			t.Errorf("--distro %q: %q %v; want %q", c.distro, st.Current, err, c.want)
		}
	}
}

// TestServeOrHereConditions: the Factory's ServeOrHere keeps a call here
// for --no-serve, another Chroma or the command's own reasons.
func TestServeOrHereConditions(t *testing.T) {
	f := &Factory{}
	for _, c := range []struct {
		name    string
		noServe bool
		o       ChromaOptions
		local   bool
		want    bool
	}{
		{"default", false, ChromaOptions{}, false, false},
		{"--no-serve", true, ChromaOptions{}, false, true},
		{"--chroma-url", false, ChromaOptions{URL: "http://h:8000"}, false, true},
		{"--chroma-data", false, ChromaOptions{DataDir: "/d"}, false, true},
		{"the command's", false, ChromaOptions{}, true, true},
	} {
		if got := f.ServeOrHere(&here{}, ServeRuledOut(c.noServe, c.o, ModelOptions{}) || c.local, AutoServeOptions{}).Serve == nil; got != c.want {
			t.Errorf("%s: serve ruled out %v, want %v", c.name, got, c.want)
		}
	}
}

// TestServeRuledOut: the one rule every door asks (the CLI's read
// commands and MCP): --no-serve, another Chroma, or another model
// variant, backend or reranker than serve loaded keeps the answer here.
func TestServeRuledOut(t *testing.T) {
	for _, c := range []struct {
		name    string
		noServe bool
		o       ChromaOptions
		mo      ModelOptions
		want    bool
	}{
		{"default", false, ChromaOptions{}, ModelOptions{}, false},
		{"--model-dir alone (serve loads the same installed model)", false, ChromaOptions{}, ModelOptions{Dir: "/m"}, false},
		{"--no-serve", true, ChromaOptions{}, ModelOptions{}, true},
		{"--chroma-url", false, ChromaOptions{URL: "http://h:8000"}, ModelOptions{}, true},
		{"--chroma-data", false, ChromaOptions{DataDir: "/d"}, ModelOptions{}, true},
		{"--model-variant", false, ChromaOptions{}, ModelOptions{Variant: "fp32"}, true},
		{"--embed-backend", false, ChromaOptions{}, ModelOptions{Backend: "go"}, true},
		{"--no-rerank", false, ChromaOptions{}, ModelOptions{Rerank: RerankOptions{Off: true}}, true},
		{"--reranker-dir", false, ChromaOptions{}, ModelOptions{Rerank: RerankOptions{Dir: "/r"}}, true},
	} {
		if got := ServeRuledOut(c.noServe, c.o, c.mo); got != c.want {
			t.Errorf("%s: ruled out %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAbsPaths: the paths a command was given are absolute before any
// work starts (a model load moves the working directory for the while);
// a bare --chroma-bin name is looked up on $PATH and stays as it is.
func TestAbsPaths(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	o := ChromaOptions{DataDir: "data", Bin: "chroma", URL: "http://h:8000"}
	mo := ModelOptions{Dir: "../m", Rerank: RerankOptions{Dir: "/abs/r"}}
	AbsPaths(&o, &mo)
	if o.DataDir != filepath.Join(wd, "data") || o.Bin != "chroma" || mo.Dir != filepath.Join(filepath.Dir(wd), "m") || mo.Rerank.Dir != "/abs/r" || o.URL != "http://h:8000" {
		t.Errorf("%+v %+v", o, mo)
	}
	o = ChromaOptions{Bin: "./venv/bin/chroma"}
	AbsPaths(&o, &ModelOptions{})
	if o.Bin != filepath.Join(wd, "venv", "bin", "chroma") || o.DataDir != "" {
		t.Errorf("a --chroma-bin path: %+v", o)
	}
}
