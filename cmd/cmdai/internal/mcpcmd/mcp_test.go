package mcpcmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// runCmd runs `cmdai mcp args...` with runF, and returns the options
// runF saw (nil: it did not run) and the command's error.
func runCmd(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	var got *Options
	app := &cli.App{Name: "cmdai", Writer: &bytes.Buffer{}, ErrWriter: &bytes.Buffer{},
		Commands:       []*cli.Command{NewCmdMCP(f, func(o *Options) error { got = o; return nil })},
		ExitErrHandler: func(*cli.Context, error) {}}
	err := app.Run(append([]string{"cmdai", "mcp"}, args...))
	return got, err
}

// The flags reach the options; the model variant is the index's own
// unless one is asked for.
func TestFlags(t *testing.T) {
	for _, k := range []string{"CMDAI_DISTRO", "CMDAI_NO_SERVE", "CMDAI_MODEL_VARIANT", "CMDAI_CHROMA_URL", "CMDAI_CHROMA_DATA"} {
		t.Setenv(k, "")
	}
	o, err := runCmd(t)
	if err != nil || o == nil {
		t.Fatalf("no flags: %v", err)
	}
	if o.KeepOpen != DefaultKeepOpen || o.Distro != "" || o.NoServe || o.Model.Variant != "" || o.Chroma.URL != "" || o.Transport != nil || o.Factory == nil {
		t.Errorf("defaults: %+v", o)
	}
	o, err = runCmd(t, "--distro", "debian-12", "--keep-open", "0", "--no-serve", "--model-variant", "fp32", "--chroma-url", "http://127.0.0.1:8000")
	if err != nil || o == nil {
		t.Fatalf("flags: %v", err)
	}
	if o.Distro != "debian-12" || o.KeepOpen != 0 || !o.NoServe || o.Model.Variant != "fp32" || o.Chroma.URL != "http://127.0.0.1:8000" {
		t.Errorf("flags: %+v", o)
	}
	t.Setenv("CMDAI_DISTRO", "fedora-40")
	if o, err := runCmd(t, "--keep-open", "90s"); err != nil || o.Distro != "fedora-40" || o.KeepOpen != 90*time.Second {
		t.Errorf("CMDAI_DISTRO and --keep-open 90s: %+v %v", o, err)
	}
}

// A bad flag or an argument is a usage error (exit 2) saying what is
// wrong, and nothing runs.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"find files"}, "takes no arguments"},
		{[]string{"--keep-open", "-1s"}, "--keep-open must be 0"},
		{[]string{"--distro", "not a distro!"}, "--distro"},
		{[]string{"--model-variant", "fp16"}, "--model-variant"},
		{[]string{"--embed-backend", "gpu"}, "--embed-backend"},
		{[]string{"--keep-open", "soon"}, "keep-open"},
		{[]string{"--bogus"}, "bogus"},
	} {
		o, err := runCmd(t, tc.args...)
		if o != nil || err == nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: ran %v, error %v (exit %d); want a usage error saying %q", tc.args, o != nil, err, cmdutil.ExitCode(err), tc.want)
		}
	}
}

// fakeServe is a running serve's client: it answers status with its
// name and its health's collection, or as a serve that went.
type fakeServe struct {
	collection string
	gone       bool
	closed     int
	asked      []answer.QueryRequest
}

func (f *fakeServe) Query(_ context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	f.asked = append(f.asked, q)
	if f.gone {
		return answer.QueryResult{}, errors.New("connection refused")
	}
	return answer.QueryResult{Collection: "from serve"}, nil
}

func (f *fakeServe) Docs(context.Context, string, string, bool) (search.CommandDoc, error) {
	return search.CommandDoc{}, nil
}

func (f *fakeServe) Explain(context.Context, answer.ExplainRequest) (answer.ExplainResult, error) {
	return answer.ExplainResult{}, nil
}

func (f *fakeServe) StatusOf(context.Context, answer.StatusRequest) (answer.IndexStatus, error) {
	if f.gone {
		return answer.IndexStatus{}, errors.New("connection refused")
	}
	return answer.IndexStatus{Current: f.collection, Collections: []builder.CollectionStatus{{Name: f.collection, Records: 9}}}, nil
}

func (f *fakeServe) Health(context.Context) (serve.Health, error) {
	if f.gone {
		return serve.Health{}, errors.New("connection refused")
	}
	return serve.Health{OK: true, Collection: f.collection, Build: buildid.Self()}, nil
}

func (f *fakeServe) Socket() string { return "/run/cmdai.sock" }
func (f *fakeServe) Close()         { f.closed++ }

// stubColl is an index of 7 records.
type stubColl struct{}

func (stubColl) Name() string                                                 { return "cmdai_linux_debian-12" }
func (stubColl) Metadata() map[string]any                                     { return map[string]any{"complete": true} }
func (stubColl) Count(context.Context) (int, error)                           { return 7, nil }
func (stubColl) Query(context.Context, []float32, int) ([]chroma.Hit, error)  { return nil, nil }
func (stubColl) Get(context.Context, []string) ([]chroma.Record, error)       { return nil, nil }
func (stubColl) All(context.Context, chroma.Include) ([]chroma.Record, error) { return nil, nil }

// fakeParts are parts over a stub index (whose opens and closes are
// counted, and which owns its data when ownsData) and srv, the serve
// that runs when running.
type fakeParts struct {
	opens, closes, dials int
	ownsData, running    bool
	starting             bool
	openErr              error
	srv                  *fakeServe
}

func (fp *fakeParts) parts(socket bool) parts {
	open := func(context.Context) (search.Searcher, func(), bool, error) {
		if fp.openErr != nil {
			return search.Searcher{}, nil, false, fp.openErr
		}
		fp.opens++
		return search.Searcher{Coll: stubColl{}}, func() { fp.closes++ }, fp.ownsData, nil
	}
	p := parts{
		resolve: func(context.Context) (distro.Info, error) { return distro.Parse("debian-12") },
		open:    open, openDocs: open,
		dial: func(context.Context) (serve.Conn, bool) {
			fp.dials++
			if !fp.running {
				return nil, false
			}
			return fp.srv, true
		},
		socket:   func() (string, error) { return "", errors.New("no data home") },
		starting: func(string) bool { return fp.starting },
	}
	if socket {
		p.socket = func() (string, error) { return "/run/cmdai.sock", nil }
	}
	return p
}

func testOptions(o Options) (*Options, *bytes.Buffer) {
	var errOut bytes.Buffer
	o.Factory = &cmdutil.Factory{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
	return &o, &errOut
}

// holderOf is who answered index_status.
func holderOf(t *testing.T, a answer.Answerer) string {
	t.Helper()
	st, err := a.Status(context.Background(), answer.StatusRequest{})
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st.Holder
}

// Each call goes to a running serve that holds the distribution's index,
// else to the index held here; a serve that went is dropped (and closed)
// and the next call looks for one again.
func TestAnswererPrefersServePerCall(t *testing.T) {
	fp := &fakeParts{running: true, srv: &fakeServe{collection: "cmdai_linux_debian-12"}}
	opts, _ := testOptions(Options{Distro: "debian-12"})
	a, closeA := newAnswerer(context.Background(), opts, fp.parts(true))
	if h := holderOf(t, a); h != "cmdai serve on /run/cmdai.sock" || fp.opens != 0 {
		t.Fatalf("with serve: held by %q, %d opens", h, fp.opens)
	}
	if res, err := a.Query(context.Background(), answer.QueryRequest{Request: "x", Mode: "semantic", Full: true}); err != nil || res.Collection != "from serve" || fp.srv.asked[0].Distro != "debian-12" || !fp.srv.asked[0].Full {
		t.Errorf("query through serve: %+v %v, asked %+v", res, err, fp.srv.asked)
	}
	if fp.dials != 1 {
		t.Errorf("%d dials; want the client kept between calls", fp.dials)
	}
	fp.srv.gone = true
	if h := holderOf(t, a); h != holder || fp.opens != 1 || fp.srv.closed != 1 {
		t.Errorf("serve gone: held by %q, %d opens, serve closed %d times", h, fp.opens, fp.srv.closed)
	}
	fp.running, fp.srv.gone = false, false
	if h := holderOf(t, a); h != holder || fp.dials != 2 {
		t.Errorf("no serve: held by %q, %d dials; want serve looked for again", h, fp.dials)
	}
	fp.running = true
	if h := holderOf(t, a); h != "cmdai serve on /run/cmdai.sock" {
		t.Errorf("serve back: held by %q", h)
	}
	closeA()
	if fp.closes != 1 || fp.srv.closed != 2 {
		t.Errorf("close: index closed %d times, serve %d; want both", fp.closes, fp.srv.closed)
	}
}

// A serve that holds another distribution's index is not asked (and its
// client is closed); neither is serve with --no-serve, another Chroma or
// another model or reranker than serve's.
func TestAnswererAsksServeOnlyWhenItAnswersAsWeWould(t *testing.T) {
	fp := &fakeParts{running: true, srv: &fakeServe{collection: "cmdai_linux_fedora-40"}}
	opts, _ := testOptions(Options{Distro: "debian-12"})
	a, closeA := newAnswerer(context.Background(), opts, fp.parts(true))
	if h := holderOf(t, a); h != holder || fp.srv.closed != 1 {
		t.Errorf("serve of another index: held by %q, its client closed %d times", h, fp.srv.closed)
	}
	closeA()
	for name, o := range map[string]Options{
		"--no-serve":      {NoServe: true},
		"--chroma-url":    {Chroma: cmdutil.ChromaOptions{URL: "http://127.0.0.1:8000"}},
		"--chroma-data":   {Chroma: cmdutil.ChromaOptions{DataDir: "/tmp/other"}},
		"--model-variant": {Model: cmdutil.ModelOptions{Variant: "fp32"}},
		"--embed-backend": {Model: cmdutil.ModelOptions{Backend: "go"}},
		// the reranker's choice too: a serve reranks as it loaded
		"--no-rerank":    {Model: cmdutil.ModelOptions{Rerank: cmdutil.RerankOptions{Off: true}}},
		"--reranker-dir": {Model: cmdutil.ModelOptions{Rerank: cmdutil.RerankOptions{Dir: "/tmp/other-reranker"}}},
	} {
		fp := &fakeParts{running: true, srv: &fakeServe{collection: "cmdai_linux_debian-12"}}
		opts, _ := testOptions(o)
		a, closeA := newAnswerer(context.Background(), opts, fp.parts(true))
		if h := holderOf(t, a); h != holder || fp.dials != 0 {
			t.Errorf("%s: held by %q, %d dials; want the index held here, serve not asked", name, h, fp.dials)
		}
		closeA()
	}
}

// With serve's socket known, the index held here (running its own
// Chroma) is closed before a call when a serve is starting on its data,
// and said so; then it is opened again when no serve answers. An index
// on a Chroma it does not own is kept.
func TestAnswererHandsTheIndexOver(t *testing.T) {
	fp := &fakeParts{ownsData: true}
	opts, errOut := testOptions(Options{KeepOpen: DefaultKeepOpen})
	a, closeA := newAnswerer(context.Background(), opts, fp.parts(true))
	defer closeA()
	holderOf(t, a)
	fp.starting = true
	holderOf(t, a)
	if fp.opens != 2 || fp.closes != 1 || !strings.Contains(errOut.String(), "cmdai mcp: a cmdai serve is starting on this index") {
		t.Errorf("serve starting: %d opens, %d closes, stderr %q; want the index handed over and said", fp.opens, fp.closes, errOut)
	}
	// the index opened again owns its data too: handed over again; the
	// one opened then is on a Chroma it does not own: kept
	fp.ownsData = false
	holderOf(t, a)
	holderOf(t, a)
	if fp.opens != 3 || fp.closes != 2 {
		t.Errorf("an index on a Chroma it does not own: %d opens, %d closes; want 3 and 2 (kept)", fp.opens, fp.closes)
	}
	// without a socket there is no handover
	fp2 := &fakeParts{ownsData: true, starting: true}
	opts2, errOut2 := testOptions(Options{})
	a2, closeA2 := newAnswerer(context.Background(), opts2, fp2.parts(false))
	defer closeA2()
	holderOf(t, a2)
	holderOf(t, a2)
	if fp2.opens != 1 || errOut2.Len() != 0 {
		t.Errorf("no socket: %d opens, stderr %q; want the index kept", fp2.opens, errOut2)
	}
}

// When the index cannot be opened because Chroma is down, the calls go
// to disk for the distribution's collection (here none is saved: the
// error says so); another error is the call's as it is.
func TestAnswererFallsBackToDisk(t *testing.T) {
	down := errmark.As(errors.New("chroma unreachable: nothing listens on 127.0.0.1:9"), chroma.ErrUnreachable)
	fp := &fakeParts{openErr: down}
	opts, _ := testOptions(Options{NoServe: true})
	home := t.TempDir()
	opts.Getenv = func(k string) string {
		if k == "CMDAI_HOME" {
			return home
		}
		return ""
	}
	a, closeA := newAnswerer(context.Background(), opts, fp.parts(false))
	defer closeA()
	_, err := a.Query(context.Background(), answer.QueryRequest{Request: "count lines", Mode: "keyword", Full: true})
	if !errors.Is(err, chroma.ErrUnreachable) || !strings.Contains(err.Error(), "no answer from disk either") || !strings.Contains(err.Error(), "cmdai_linux_debian-12") {
		t.Errorf("query, Chroma down: %v; want the answer from disk tried for the distribution's collection", err)
	}
	fp.openErr = errors.New("no index cmdai_linux_debian-12: build it with `cmdai index init`")
	if _, err := a.Query(context.Background(), answer.QueryRequest{Request: "count lines", Mode: "keyword", Full: true}); err != fp.openErr {
		t.Errorf("no index: %v; want the open's error as it is", err)
	}
}
