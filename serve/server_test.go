package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
	"github.com/cmdai/cmdai/serve/servelock"
)

// fakeBackend answers from a generation number that Reload bumps, so a
// test can tell which index answered.
type fakeBackend struct {
	gen     atomic.Int64
	reloads atomic.Int64
	block   chan struct{} // when set, Query waits on it
	down    atomic.Bool   // when set, Where says serve runs without Chroma
}

func (b *fakeBackend) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	if q.Distro != "" && q.Distro != "debian-12" {
		return answer.QueryResult{}, answer.ErrNotHeld
	}
	if b.block != nil {
		<-b.block
	}
	hit := shown.CommandHit{Command: "find", Score: float64(b.gen.Load()), Description: "search for files",
		Matches: []shown.Match{{ID: "find:0", Section: "NAME", Score: 0.5, Text: "find - search for files"}}}
	return answer.QueryResult{Request: q.Request, Collection: "cmdai_linux_debian-12", Commands: []shown.CommandHit{hit}, Millis: 1}, nil
}

func (b *fakeBackend) Docs(ctx context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	if q.Strict {
		return search.CommandDoc{}, fmt.Errorf("strict docs asked")
	}
	if q.Command != "find" {
		return search.CommandDoc{}, fmt.Errorf("%w %q: it is not in the index", search.ErrUnknownCommand, q.Command)
	}
	return search.CommandDoc{CommandHit: shown.CommandHit{Command: "find", Description: "search for files"},
		Records: []shown.Match{{ID: "find:0", Kind: "summary", Section: "NAME", Text: "find - search for files"}}}, nil
}

// Status echoes what it was asked, so that a test sees what reached the
// Backend: detailed in Mode, the caller's PATH and MANPATH in URL and
// Version ("serve's own" without them).
func (b *fakeBackend) Status(ctx context.Context, req answer.StatusRequest) (answer.IndexStatus, error) {
	var st answer.IndexStatus
	st.Current = "cmdai_linux_debian-12"
	st.Server.Healthy = true
	st.Server.Mode = strconv.FormatBool(req.Detailed)
	st.Server.URL = "serve's own"
	if req.Env != nil {
		st.Server.URL, st.Server.Version = req.Env.Path, req.Env.ManPath
	}
	return st, nil
}

// Explain judges the line with the real explain package over one
// made-up command's records (tar -x); a line the shell cannot parse is
// an error of exit code 2, as cmdai's are.
func (b *fakeBackend) Explain(ctx context.Context, req answer.ExplainRequest) (answer.ExplainResult, error) {
	if req.Distro != "" && req.Distro != "debian-12" {
		return answer.ExplainResult{}, answer.ErrNotHeld
	}
	res, err := explain.Explain(ctx, req.Line, fakeTar, explain.Options{})
	if err != nil {
		return answer.ExplainResult{}, err
	}
	return answer.ExplainResult{Result: res, Collection: "cmdai_linux_debian-12"}, nil
}

func (b *fakeBackend) Where() answer.Holding {
	if b.down.Load() {
		return answer.Holding{Collection: "cmdai_linux_debian-12", ChromaURL: "http://127.0.0.1:1", Degraded: true, DegradedReason: "chroma unreachable: no heartbeat"}
	}
	return answer.Holding{Collection: "cmdai_linux_debian-12", ChromaURL: "http://127.0.0.1:1", DataDir: "/data"}
}

func (b *fakeBackend) Reload(ctx context.Context) error {
	b.reloads.Add(1)
	b.gen.Add(1)
	return nil
}

func (b *fakeBackend) Close() {}

// start runs a Server of b on a fresh socket until the test ends.
func start(t *testing.T, b Backend, opts Options) (socket string, done <-chan error) {
	t.Helper()
	dir, err := os.MkdirTemp("", "srv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket = filepath.Join(dir, "cmdai.sock")
	l, err := servelock.Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	opts.Ready = func(string, net.Addr) { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	stopped := make(chan struct{})
	go func() { ch <- New(b, opts).Run(ctx, l); l.Release(); close(stopped) }()
	t.Cleanup(func() { cancel(); <-stopped })
	select {
	case <-ready:
	case err := <-ch:
		t.Fatalf("serve: %v", err)
	}
	return socket, ch
}

func dial(t *testing.T, socket string) *Client {
	t.Helper()
	c, err := Dial(context.Background(), socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestQueryStatusHealth(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	fi, err := os.Stat(socket)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v; want 0600", fi.Mode(), err)
	}
	c := dial(t, socket)
	res, err := c.Query(context.Background(), answer.QueryRequest{Request: "  find files ", Context: true})
	if err != nil || res.Request != "find files" || len(res.Commands) != 1 || !strings.Contains(res.Context, "find") {
		t.Errorf("query: %+v %v", res, err)
	}
	if _, err := c.Query(context.Background(), answer.QueryRequest{Request: "x", Distro: "fedora-40"}); !errors.Is(err, answer.ErrNotHeld) {
		t.Errorf("another distro: %v; want answer.ErrNotHeld", err)
	}
	if st, err := c.StatusOf(context.Background(), answer.StatusRequest{Detailed: true}); err != nil || st.Current != "cmdai_linux_debian-12" {
		t.Errorf("status: %+v %v", st, err)
	}
	if h, err := c.Health(context.Background()); err != nil || !h.OK || h.Writing {
		t.Errorf("health: %+v %v", h, err)
	}
}

// TestHealthJSON: GET /v1/health is what the Backend holds
// (answer.Holding) with serve's own pid and writing, in the order its
// clients have always read: ok, pid, collection, chroma_url, data_dir,
// writing, then degraded and its reason only when degraded, then its
// build (this binary's).
func TestHealthJSON(t *testing.T) {
	b := &fakeBackend{}
	socket, _ := start(t, b, Options{})
	pid := strconv.Itoa(os.Getpid())
	build := `,"build_id":"` + buildid.Self() + `"}`
	status, body := get(t, socket, "/v1/health")
	want := `{"schema_version":1,"ok":true,"pid":` + pid + `,"collection":"cmdai_linux_debian-12","chroma_url":"http://127.0.0.1:1","data_dir":"/data","writing":false` + build
	if status != 200 || strings.TrimSpace(body) != want {
		t.Errorf("health: %d %s\nwant %s", status, body, want)
	}
	b.down.Store(true)
	status, body = get(t, socket, "/v1/health")
	want = `{"schema_version":1,"ok":true,"pid":` + pid + `,"collection":"cmdai_linux_debian-12","chroma_url":"http://127.0.0.1:1","writing":false,"degraded":true,"degraded_reason":"chroma unreachable: no heartbeat"` + build
	if status != 200 || strings.TrimSpace(body) != want {
		t.Errorf("degraded health: %d %s\nwant %s", status, body, want)
	}
}

// TestDocs: GET /v1/docs answers a command's records; an unknown command
// is 404 and bad names 400, each a JSON error; serve keeps serving.
func TestDocs(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	c := dial(t, socket)
	doc, err := c.Docs(context.Background(), "find", "", false)
	if err != nil || doc.Command != "find" || len(doc.Records) != 1 || doc.Records[0].Text != "find - search for files" {
		t.Errorf("docs of find: %+v %v", doc, err)
	}
	var se *Error
	if _, err := c.Docs(context.Background(), "nosuchcmd", "", false); !errors.As(err, &se) || se.Status != 404 || !strings.Contains(se.Message, "not in the index") {
		t.Errorf("unknown command: %v; want a 404 saying so", err)
	}
	for _, q := range []struct {
		query, want string
		status      int
	}{
		{"", "no command named", 400},
		{"?command=", "no command named", 400},
		{"?command=%20%20", "no command named", 400},
		{"?command=a%20b%20c", "not a command name", 400},
		{"?command=grep%20-c", "not a command name", 400},
		{"?command=ls%00", "control or invisible character", 400},
		{"?command=..%2Fetc", "not a command name", 400},
		{"?command=%ff%fe", "not valid UTF-8", 400},
		{"?command=" + strings.Repeat("a", 300), "at most 200", 400},
		{"?command=find&command=ls", "one command", 400},
		{"?command=find&strict=yes", "strict must be true or false", 400},
		{"?command=find&strict=true&strict=false", "one strict", 400},
		{"?cmd=find", `unknown parameter \"cmd\"`, 400},
		{"?command=%zz", "bad query string", 400},
	} {
		status, body := get(t, socket, "/v1/docs"+q.query)
		if status != q.status || !strings.Contains(body, q.want) || !strings.Contains(body, `"exit_code":2`) {
			t.Errorf("docs%s: %d %s; want %d with %q", q.query, status, body, q.status, q.want)
		}
	}
	// issue 30, finding 10: a subcommand as it is run reaches the backend
	if _, err := c.Docs(context.Background(), "git \t commit", "", false); !errors.As(err, &se) || se.Status != 404 || !strings.Contains(se.Message, `"git commit"`) {
		t.Errorf("docs of git commit: %v; want the backend asked for \"git commit\"", err)
	}
	if _, err := c.Docs(context.Background(), "find", "", true); err == nil || !strings.Contains(err.Error(), "strict docs asked") {
		t.Errorf("strict docs: %v; want the backend asked strictly", err)
	}
	if status, body := post(t, socket, "/v1/docs?command=find", ""); status != 405 {
		t.Errorf("POST docs: %d %s; want 405", status, body)
	}
	if _, err := c.Docs(context.Background(), "find", "", false); err != nil {
		t.Errorf("after the bad input: %v", err)
	}
}

// get asks path on the socket and returns the status and body.
func get(t *testing.T, socket, path string) (int, string) {
	t.Helper()
	hc := http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return net.Dial("unix", socket)
	}}}
	resp, err := hc.Get("http://cmdai" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// post sends body raw to the socket and returns the status and body.
func post(t *testing.T, socket, path, body string) (int, string) {
	t.Helper()
	hc := http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return net.Dial("unix", socket)
	}}}
	resp, err := hc.Post("http://cmdai"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// Each bad input gets a clear 4xx JSON error, and serve keeps serving.
func TestBadInput(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	for _, c := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"malformed", "/v1/query", `{"request": "x"`, 400, "bad query JSON"},
		{"not an object", "/v1/query", `[1,2]`, 400, "bad query JSON"},
		{"two objects", "/v1/query", `{"request":"x"} {"request":"y"}`, 400, "one object"},
		{"unknown field", "/v1/query", `{"request":"x","kk":3}`, 400, `unknown field \"kk\"`},
		{"k zero", "/v1/query", `{"request":"x","k":0}`, 400, "k must be 1 to 100, not 0"},
		{"k negative", "/v1/query", `{"request":"x","k":-3}`, 400, "not -3"},
		{"k huge", "/v1/query", `{"request":"x","k":1000000}`, 400, "not 1000000"},
		{"k not a number", "/v1/query", `{"request":"x","k":"five"}`, 400, "bad query JSON"},
		{"empty", "/v1/query", `{"request":"   "}`, 400, "empty request"},
		{"long", "/v1/query", `{"request":"` + strings.Repeat("a", 3000) + `"}`, 400, "request of 3000 bytes"},
		{"1 MB", "/v1/query", `{"request":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "over 64 KiB"},
		{"invalid UTF-8", "/v1/query", "{\"request\":\"find \xff\xfe files\"}", 400, "not valid UTF-8"},
		{"bad mode", "/v1/query", `{"request":"x","mode":"psychic"}`, 400, "unknown mode"},
		{"max_tokens", "/v1/query", `{"request":"x","max_tokens":0}`, 400, "max_tokens"},
		{"GET a query", "/v1/nothing", ``, 404, "no such endpoint"},
	} {
		status, body := post(t, socket, c.path, c.body)
		// the CLI's --json error object, schema version first
		if status != c.status || !strings.Contains(body, c.want) || !strings.Contains(body, `"exit_code":2`) || !strings.HasPrefix(body, `{"schema_version":1,"error":`) {
			t.Errorf("%s: %d %s; want %d with %q", c.name, status, body, c.status, c.want)
		}
	}
	if status, body := post(t, socket, "/v1/query", `{"request":"find files"}`); status != 200 || !strings.HasPrefix(body, `{"schema_version":1,`) {
		t.Errorf("after the bad input: %d %s", status, body)
	}
}

// A client that connects and never writes is dropped; one that leaves
// mid-answer costs nothing; serve keeps serving.
func TestSilentAndVanishingClients(t *testing.T) {
	b := &fakeBackend{block: make(chan struct{})}
	socket, _ := start(t, b, Options{HeaderTimeout: 200 * time.Millisecond})
	silent, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := silent.Read(make([]byte, 1)); err == nil {
		t.Errorf("a silent client read %d bytes; want its connection dropped", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("a silent client was not dropped within 10 s")
	}

	gone, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	gone.Write([]byte("POST /v1/query HTTP/1.1\r\nHost: cmdai\r\nContent-Length: 19\r\n\r\n{\"request\":\"find\"}\n"))
	time.Sleep(50 * time.Millisecond)
	gone.Close()
	close(b.block) // the answer is written to a closed connection
	c := dial(t, socket)
	if _, err := c.Query(context.Background(), answer.QueryRequest{Request: "find"}); err != nil {
		t.Errorf("after the clients: %v", err)
	}
}

// A second serve on the same socket is busy; a stale socket is replaced.
func TestLockAndStaleSocket(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	if _, err := servelock.Acquire(socket); !errors.Is(err, servelock.ErrBusy) {
		t.Errorf("second serve: %v; want ErrBusy", err)
	}

	dir := t.TempDir()
	stale := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // a killed serve's socket: the file stays, nobody listens
	if _, err := Dial(context.Background(), stale); !errors.Is(err, ErrNotRunning) {
		t.Errorf("stale socket: %v; want ErrNotRunning", err)
	}
	if _, err := Dial(context.Background(), filepath.Join(dir, "none.sock")); !errors.Is(err, ErrNotRunning) {
		t.Errorf("no socket: %v; want ErrNotRunning", err)
	}
	l, err := servelock.Acquire(stale)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- New(&fakeBackend{}, Options{Ready: func(string, net.Addr) { close(ready) }}).Run(ctx, l)
	}()
	<-ready
	if _, err := dial(t, stale).Health(ctx); err != nil {
		t.Errorf("serve over a stale socket: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("socket left after a clean stop: %v", err)
	}
}

func TestIdleTimeout(t *testing.T) {
	_, done := start(t, &fakeBackend{}, Options{IdleTimeout: 300 * time.Millisecond})
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("idle exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after its idle timeout")
	}
}

// TestOnQuiet: OnQuiet runs once after a stretch of requests, not before
// the first request, not again while nothing comes, and again after the
// next request.
func TestOnQuiet(t *testing.T) {
	quiet := make(chan struct{}, 10)
	socket, _ := start(t, &fakeBackend{}, Options{QuietAfter: 50 * time.Millisecond, OnQuiet: func() { quiet <- struct{}{} }})
	calls := func(wait time.Duration) int {
		time.Sleep(wait)
		return len(quiet)
	}
	if n := calls(300 * time.Millisecond); n != 0 {
		t.Fatalf("OnQuiet ran %d times before any request", n)
	}
	c := dial(t, socket)
	for round := 1; round <= 2; round++ {
		for i := 0; i < 3; i++ {
			if _, err := c.Query(context.Background(), answer.QueryRequest{Request: "find files"}); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-quiet:
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: OnQuiet did not run after the requests stopped", round)
		}
		if n := calls(300 * time.Millisecond); n != 0 {
			t.Fatalf("round %d: OnQuiet ran %d more times with no request between", round, n)
		}
	}
}

// While a writer holds the lease, queries wait (or get 503 past
// QueryWait); when it lets go, serve reloads first, then answers.
func TestLease(t *testing.T) {
	b := &fakeBackend{}
	socket, _ := start(t, b, Options{QueryWait: 30 * time.Second})
	c := dial(t, socket)
	l, err := c.Lease(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if l.ChromaURL != "http://127.0.0.1:1" || l.DataDir != "/data" {
		t.Errorf("lease: %+v", l.Lease)
	}
	if h, _ := c.Health(context.Background()); !h.Writing {
		t.Errorf("health during a write: %+v", h)
	}
	var wg sync.WaitGroup
	var got answer.QueryResult
	var qerr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		got, qerr = dial(t, socket).Query(context.Background(), answer.QueryRequest{Request: "find"})
	}()
	time.Sleep(200 * time.Millisecond)
	l.Close()
	wg.Wait()
	if qerr != nil || len(got.Commands) != 1 || got.Commands[0].Score != 1 || b.reloads.Load() != 1 {
		t.Errorf("query during the write: %+v %v (reloads %d); want the reloaded index's answer", got, qerr, b.reloads.Load())
	}
}

func TestQueryWaitEnds(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{QueryWait: 100 * time.Millisecond})
	c := dial(t, socket)
	l, err := c.Lease(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = dial(t, socket).Query(context.Background(), answer.QueryRequest{Request: "find"})
	var se *Error
	if !errors.As(err, &se) || se.Status != 503 || se.ExitCode != 6 || !strings.Contains(se.Message, "being written") {
		t.Errorf("query past the wait: %v; want 503, exit 6", err)
	}
}

// A query that comes while serve is starting (lock taken, not listening
// yet) waits for it instead of starting a second Chroma on its data; a
// serve that has stopped, or was killed, is not waited for.
func TestDialWaitsForAStartingServe(t *testing.T) {
	defer func(w time.Duration) { StartWait = w }(StartWait)
	StartWait = 10 * time.Second
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	l, err := servelock.Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	if !servelock.Starting(socket) {
		t.Fatal("a held lock with a live pid is not Starting")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond) // the model loading
		done <- New(&fakeBackend{}, Options{}).Run(ctx, l)
	}()
	c, err := Dial(context.Background(), socket)
	if err != nil {
		t.Fatalf("Dial during the start: %v; want it to wait for serve", err)
	}
	c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stop: %v", err)
	}
	l.Release()
	if servelock.Starting(socket) {
		t.Error("a released lock is still Starting")
	}
	if _, err := Dial(context.Background(), socket); !errors.Is(err, ErrNotRunning) {
		t.Errorf("after a clean stop: %v; want ErrNotRunning", err)
	}

	// A killed serve leaves its pid in the lock file: a dead pid is not
	// waited for.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(socket+".lock", []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if servelock.Starting(socket) {
		t.Error("the pid of a dead process is Starting")
	}
}

// TestLeaseRefusedWhenDegraded: a serve without Chroma lends none to a
// writer (502, exit code 4, saying why) and says so in its health; once
// it has Chroma again the lease is given as usual.
func TestLeaseRefusedWhenDegraded(t *testing.T) {
	b := &fakeBackend{}
	b.down.Store(true)
	socket, _ := start(t, b, Options{})
	c := dial(t, socket)
	if h, err := c.Health(context.Background()); err != nil || !h.Degraded || h.DegradedReason == "" || h.DataDir != "" {
		t.Errorf("health: %+v %v; want degraded with a reason and no data dir", h, err)
	}
	var se *Error
	l, err := c.Lease(context.Background(), false)
	if !errors.As(err, &se) || se.Status != 502 || se.ExitCode != 4 || !strings.Contains(se.Message, "without Chroma") || !strings.Contains(se.Message, "no heartbeat") {
		t.Errorf("lease without Chroma: %v; want 502, exit code 4 and why", err)
	}
	if l != nil {
		l.Close()
	}
	b.down.Store(false)
	l, err = c.Lease(context.Background(), false)
	if err != nil || l.DataDir != "/data" {
		t.Fatalf("lease with Chroma back: %+v %v", l, err)
	}
	l.Close()
}

// listenSocket leaves a 0600 socket at its path and nothing beside it; a
// directory at the socket's path is an error that names it (before, the
// rename's error was dropped and serve listened on a temporary name).
func TestListenSocketFailsLoudly(t *testing.T) {
	dir, err := os.MkdirTemp("", "cmdai-ls") // a socket path must be short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "s.sock")
	ln, err := listenSocket(socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	fi, err := os.Lstat(socket)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v %v; want a 0600 socket", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left beside it: %v; want the socket alone", ents)
	}
	busy := filepath.Join(dir, "d.sock")
	if err := os.MkdirAll(filepath.Join(busy, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if ln, err := listenSocket(busy); err == nil || !strings.Contains(err.Error(), "put serve's socket at "+busy) {
		if ln != nil {
			ln.Close()
		}
		t.Errorf("a directory at the socket's path: %v; want an error naming it", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left beside it: %v; want the socket and the directory alone", ents)
	}
}

// TestDialGivesUpOnAFrozenServe (issue 45, finding 12): a serve that
// holds its lock and listens, but answers nothing (stopped with SIGSTOP:
// here a listener that takes connections and never reads) is given up
// on after one health timeout, not waited for as a serve starting.
func TestDialGivesUpOnAFrozenServe(t *testing.T) {
	defer func(w time.Duration) { StartWait = w }(StartWait)
	StartWait = 20 * time.Second
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	l, err := servelock.Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // taken, never answered
		}
	}()
	began := time.Now()
	_, err = Dial(context.Background(), socket)
	took := time.Since(began)
	if !errors.Is(err, ErrUnresponsive) || !errors.Is(err, ErrNotRunning) {
		t.Errorf("Dial of a frozen serve: %v; want ErrUnresponsive (and ErrNotRunning)", err)
	}
	if took > dialTimeout+2*time.Second {
		t.Errorf("Dial of a frozen serve took %s; want one health timeout (%s), not the start wait (%s)", took, dialTimeout, StartWait)
	}
}

// TestReadLease (issue 45, finding 18): a reader's lease (a one-shot
// answer, status, doctor, export run beside serve) lends serve's Chroma
// without holding its queries or making it reload after: a query
// meanwhile is answered at once, from the index as loaded; a writer's
// lease waits for the reader; a bad read value is 400.
func TestReadLease(t *testing.T) {
	b := &fakeBackend{}
	socket, _ := start(t, b, Options{QueryWait: 30 * time.Second})
	c := dial(t, socket)
	l, err := c.Lease(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if l.ChromaURL != "http://127.0.0.1:1" || l.DataDir != "/data" {
		t.Errorf("read lease: %+v", l.Lease)
	}
	if h, _ := c.Health(context.Background()); h.Writing {
		t.Errorf("health during a read lease says writing: %+v", h)
	}
	began := time.Now()
	if _, err := dial(t, socket).Query(context.Background(), answer.QueryRequest{Request: "find"}); err != nil || time.Since(began) > 2*time.Second {
		t.Errorf("query during a read lease: %v after %s; want an answer at once", err, time.Since(began))
	}
	wrote := make(chan error, 1)
	go func() {
		w, err := dial(t, socket).Lease(context.Background(), false)
		if err == nil {
			w.Close()
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		t.Errorf("a writer's lease during a read lease: %v; want it to wait", err)
	case <-time.After(300 * time.Millisecond):
	}
	l.Close()
	if err := <-wrote; err != nil {
		t.Errorf("the writer's lease after the reader: %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); b.reloads.Load() != 1 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if n := b.reloads.Load(); n != 1 {
		t.Errorf("%d reloads; want the writer's one, none for the reader", n)
	}
	status, body := post(t, socket, "/v1/lease?read=yes", "")
	if status != 400 || !strings.Contains(body, "read=true") {
		t.Errorf("read=yes: %d %s", status, body)
	}
}
