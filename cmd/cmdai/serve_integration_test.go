package main

// Integration tests of `cmdai serve` with the real Chroma server and
// model: the CLI's answers through serve are the one-shot ones, byte for
// byte; writers work while it runs and it answers with their index after.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/servecmd"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/servelock"
)

// startServe runs `cmdai serve` in this process until the returned stop,
// and waits for it to answer.
func startServe(t *testing.T) (stop func() error, c *serve.Client) {
	t.Helper()
	return startServeOf(t, "debian-12")
}

// startServeOf is startServe holding the index of distribution id ("":
// this machine's).
func startServeOf(t *testing.T, id string) (stop func() error, c *serve.Client) {
	t.Helper()
	return startServeWith(t, id, cmdutil.ChromaOptions{})
}

// startServeWith is startServeOf with these Chroma options.
func startServeWith(t *testing.T, id string, co cmdutil.ChromaOptions) (stop func() error, c *serve.Client) {
	t.Helper()
	stop, c, _ = startServeOpts(t, servecmd.ServeOptions{Distro: id, Chroma: co})
	return stop, c
}

// startServeOpts is startServe with these options (Factory and model
// filled in), also giving serve's log.
func startServeOpts(t *testing.T, so servecmd.ServeOptions) (stop func() error, c *serve.Client, log *bytes.Buffer) {
	t.Helper()
	io, _, errOut := testIO()
	so.Factory = cmdutil.NewFactory(io, os.Getenv, "")
	so.Model = cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- servecmd.RunServe(ctx, &so) }()
	socket, err := config.ServeSocket(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if c, err = serve.Dial(context.Background(), socket); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s", err, errOut)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer within 60 s: %s", errOut)
		}
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		c.Close()
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return stop, c, errOut
}

// smallIndex builds the fake machine's index (frob, unfrob, helpy).
func smallIndex(t *testing.T) (bin, man string, initOpts func() *initcmd.InitOptions) {
	t.Helper()
	realEnv(t)
	bin, man, _ = fakeMachine(t)
	initOpts = func() *initcmd.InitOptions {
		io, _, _ := testIO()
		return &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), JSON: true, Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
			ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	}
	if err := initcmd.RunInit(context.Background(), initOpts()); err != nil {
		t.Fatalf("init: %v", err)
	}
	return bin, man, initOpts
}

var (
	queryMillis = regexp.MustCompile(`"query_ms":[0-9.e+-]+`)
	chromaURL   = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)
	// serveLine is status's line about the serve that runs: none before
	// one is started, that one after, by design.
	serveLine = regexp.MustCompile(`(?m)^serve:   .*\n`)
)

// TestServeSameOutput runs the same commands one-shot and through serve:
// the same stdout (but the query's time and the private server's port),
// stderr and exit code.
func TestServeSameOutput(t *testing.T) {
	smallIndex(t)
	cmds := [][]string{
		{"index", "query", "twiddle the bits of a file", "--distro", "debian-12"},
		{"index", "query", "twiddle the bits of a file", "--distro", "debian-12", "--json", "-k", "2"},
		{"index", "query", "twiddle bits recursively", "--distro", "debian-12", "--context", "--max-tokens", "300"},
		{"index", "query", "helpful quiet", "--distro", "debian-12", "--mode", "hybrid", "--json"},
		{"index", "query", "twiddle bits files", "--distro", "debian-12", "--mode", "keyword"},
		{"index", "status", "--distro", "debian-12", "--json"},
		{"index", "status", "--distro", "debian-12", "--detailed"},
	}
	type result struct {
		code        int
		out, errOut string
	}
	runAll := func() []result {
		var rs []result
		for _, args := range cmds {
			code, out, errOut := runCLI(t, args...)
			out = chromaURL.ReplaceAllString(queryMillis.ReplaceAllString(out, `"query_ms":0`), "URL")
			rs = append(rs, result{code, serveLine.ReplaceAllString(out, "serve: …\n"), errOut})
		}
		return rs
	}
	oneShot := runAll()
	stop, c := startServe(t)
	before, _ := c.Health(context.Background())
	viaServe := runAll()
	for i := range cmds {
		if oneShot[i] != viaServe[i] {
			t.Errorf("%q:\none-shot  exit %d\n%s%s\nvia serve exit %d\n%s%s", cmds[i], oneShot[i].code, oneShot[i].out, oneShot[i].errOut,
				viaServe[i].code, viaServe[i].out, viaServe[i].errOut)
		}
		if oneShot[i].code != 0 || oneShot[i].out == "" {
			t.Errorf("%q: exit %d, %q", cmds[i], oneShot[i].code, oneShot[i].errOut)
		}
	}
	// --no-serve answers in this process, through serve's Chroma.
	if code, out, errOut := runCLI(t, append(cmds[0], "--no-serve")...); code != 0 || out != viaServe[0].out {
		t.Errorf("--no-serve: exit %d %s %s", code, out, errOut)
	}
	after, _ := c.Health(context.Background())
	if before.PID == 0 || before.ChromaURL != after.ChromaURL {
		t.Errorf("health: %+v then %+v", before, after)
	}

	// a second serve on this home: exit 6, saying why
	if code, _, errOut := runCLI(t, "serve", "--distro", "debian-12"); code != cmdutil.ExitBusy || !strings.Contains(errOut, "another cmdai serve is running") {
		t.Errorf("second serve: exit %d %q; want 6", code, errOut)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	socket, _ := config.ServeSocket(os.Getenv)
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket left after serve stopped: %v", err)
	}
	// serve's private server is gone: a one-shot query starts its own
	if code, out, _ := runCLI(t, cmds[0]...); code != 0 || out != oneShot[0].out {
		t.Errorf("after serve: exit %d %s", code, out)
	}
}

// TestServeWriters: a refresh while serve runs writes through serve's
// Chroma (no exit 6); a query during the write waits for it and is
// answered from the new index; clear leaves serve answering exit 3.
func TestServeWriters(t *testing.T) {
	bin, man, initOpts := smallIndex(t)
	_, c := startServe(t)
	ctx := context.Background()

	// a query asked while a writer holds the lease is not answered until
	// the writer lets go (then from the index it left)
	lease, err := c.Lease(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan string, 1)
	go func() {
		_, out, _ := runCLI(t, "index", "query", "wobble a file gently", "--distro", "debian-12", "-k", "1")
		answered <- out
	}()
	select {
	case out := <-answered:
		t.Fatalf("a query was answered during a write: %q", out)
	case <-time.After(500 * time.Millisecond):
	}
	// install wobble, refresh while serve runs (its own lease follows
	// ours: it waits for it)
	os.WriteFile(filepath.Join(bin, "wobble"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	src, err := os.ReadFile(repoFile("manparse/testdata/wobble.1"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(man, "man1", "wobble.1"), src, 0o644)
	refreshed := make(chan error, 1)
	go func() { refreshed <- initcmd.RunRefresh(ctx, initOpts()) }()
	time.Sleep(200 * time.Millisecond)
	lease.Close()
	if err := <-refreshed; err != nil {
		t.Fatalf("refresh while serve runs: %v", err)
	}
	select {
	case <-answered: // answered between the two writes: either index is whole
	case <-time.After(60 * time.Second):
		t.Fatal("the waiting query was never answered")
	}
	code, out, errOut := runCLI(t, "index", "query", "wobble a file gently", "--distro", "debian-12", "-k", "1")
	if code != 0 || !strings.HasPrefix(out, "1. wobble ") {
		t.Errorf("after the refresh: exit %d %q %s; want wobble first", code, out, errOut)
	}

	// clear through serve: serve answers what a one-shot query would
	if code, _, errOut := runCLI(t, "index", "clear", "--confirm", "--distro", "debian-12"); code != 0 {
		t.Fatalf("clear while serve runs: exit %d %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "index", "query", "wobble", "--distro", "debian-12")
	if code != cmdutil.ExitNoIndex || !strings.Contains(errOut, "index init") {
		t.Errorf("after clear: exit %d %q; want 3", code, errOut)
	}
	_, err = c.Query(ctx, answerlayer.QueryRequest{Request: "wobble"})
	var se *serve.Error
	if !errors.As(err, &se) || se.Status != 404 || se.ExitCode != cmdutil.ExitNoIndex {
		t.Errorf("serve after clear: %v; want 404, exit 3", err)
	}
	// a first init through serve (built aside, swapped in): serve answers
	// from it
	if err := initcmd.RunInit(ctx, initOpts()); err != nil {
		t.Fatalf("init while serve runs: %v", err)
	}
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: "wobble a file gently", K: 1}); err != nil || len(res.Commands) != 1 || res.Commands[0].Command != "wobble" {
		t.Errorf("serve after a new init: %+v %v", res, err)
	}
}

// childServe starts `cmdai serve` in a child process and waits until it
// answers.
func childServe(t *testing.T) (*exec.Cmd, *bytes.Buffer, serve.Health) {
	t.Helper()
	cmd, errOut := spawnServe(t)
	socket, _ := config.ServeSocket(os.Getenv)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := serve.Dial(context.Background(), socket); err == nil {
			h, err := c.Health(context.Background())
			c.Close()
			if err == nil {
				return cmd, errOut, h
			}
		}
	}
	t.Fatalf("the child serve did not answer in 60 s: %s", errOut.String())
	return nil, nil, serve.Health{}
}

// TestServeSignalsAndStaleSocket: SIGTERM stops serve and its Chroma
// server (exit 0, socket removed); after a SIGKILL the stale socket sends
// queries one-shot, and the next serve replaces it.
func TestServeSignalsAndStaleSocket(t *testing.T) {
	smallIndex(t)
	ctx := context.Background()
	cmd, errOut, h := childServe(t)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v; want exit 0\n%s", err, errOut)
	}
	if !strings.Contains(errOut.String(), "cmdai serve: stopped") {
		t.Errorf("serve's log: %q", errOut)
	}
	if chroma.Answers(ctx, h.ChromaURL) == nil {
		t.Errorf("serve's Chroma server at %s still answers after SIGTERM: an orphan", h.ChromaURL)
	}
	socket, _ := config.ServeSocket(os.Getenv)
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket after SIGTERM: %v; want it removed", err)
	}

	cmd, errOut, h = childServe(t)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("after SIGKILL the socket should be left behind: %v", err)
	}
	// its Chroma server dies with it (parent-death signal); the data lock
	// goes with them
	for deadline := time.Now().Add(15 * time.Second); chroma.Answers(ctx, h.ChromaURL) == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed serve's Chroma server still answers: %s", errOut)
		}
	}
	code, out, stderr := runCLI(t, "index", "query", "twiddle the bits of a file", "--distro", "debian-12", "-k", "1")
	if code != 0 || !strings.HasPrefix(out, "1. frob ") {
		t.Errorf("one-shot past a stale socket: exit %d %q %s", code, out, stderr)
	}
	_, c := startServe(t)
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: "twiddle the bits of a file", K: 1}); err != nil || len(res.Commands) != 1 {
		t.Errorf("serve over the stale socket: %+v %v", res, err)
	}
}

// TestQueryWhileServeStarts: a query that comes while serve is starting
// (its lock taken, its model and Chroma not ready) waits for it and is
// answered through it, instead of starting a second Chroma on the same
// data (which the data lock refuses: exit 6).
func TestQueryWhileServeStarts(t *testing.T) {
	smallIndex(t)
	_, errOut := spawnServe(t)
	socket, _ := config.ServeSocket(os.Getenv)
	for deadline := time.Now().Add(30 * time.Second); !servelock.Starting(socket); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the child serve did not take its lock: %s", errOut.String())
		}
	}
	code, out, stderr := runCLI(t, "index", "query", "twiddle the bits of a file", "--distro", "debian-12", "-k", "1")
	if code != 0 || !strings.HasPrefix(out, "1. frob ") {
		t.Errorf("query during serve's start: exit %d %q %s\nserve: %s", code, out, stderr, errOut.String())
	}
	if !strings.Contains(errOut.String(), "cmdai serve: ") {
		t.Errorf("serve did not start beside the query: %s", errOut.String())
	}
}

// spawnServe starts `cmdai serve` (debian-12's index) in a child process
// and returns at once; the child is killed when the test ends.
func spawnServe(t *testing.T) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI=serve\n--distro\ndebian-12")
	errOut := &bytes.Buffer{}
	cmd.Stderr = errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, errOut
}

// TestServeJudgesAgainstTheCallersPath (issue 45, finding 14): a serve
// keeps the $PATH it started with, but judges whether a command the
// index lacks is installed against the caller's: `cmdai explain` sends
// its own. A tool only in the caller's PATH is "on PATH, but the index
// has no page of it", through serve as one-shot; asked without a path,
// serve judges by its own and finds it not installed.
func TestServeJudgesAgainstTheCallersPath(t *testing.T) {
	smallIndex(t)
	tools := t.TempDir()
	need(t, os.WriteFile(filepath.Join(tools, "zzcallertool"), []byte("#!/bin/sh\n"), 0o755))
	stop, c := startServe(t)
	defer stop()
	ctx := context.Background()
	verdict := func(res answerlayer.ExplainResult) judge.Verdict {
		if len(res.Commands) != 1 {
			t.Fatalf("explain: %+v", res)
		}
		return res.Commands[0].Verdict
	}
	res, err := c.Explain(ctx, answerlayer.ExplainRequest{Line: "zzcallertool -x"})
	need(t, err)
	if v := verdict(res); v != judge.NotInstalled {
		t.Errorf("serve's own PATH: %s, want %s", v, judge.NotInstalled)
	}
	res, err = c.Explain(ctx, answerlayer.ExplainRequest{Line: "zzcallertool -x", Path: tools + ":" + os.Getenv("PATH")})
	need(t, err)
	if v := verdict(res); v != judge.Undocumented {
		t.Errorf("the caller's PATH: %s, want %s", v, judge.Undocumented)
	}
	if _, err := c.Explain(ctx, answerlayer.ExplainRequest{Line: "ls", Path: "/bin\x00/x"}); err == nil {
		t.Error("a path holding NUL was taken")
	}
	env := append(os.Environ(), "PATH="+tools+":"+os.Getenv("PATH"))
	for _, noServe := range []bool{false, true} {
		args := []string{"explain", "--json", "--distro", "debian-12", "zzcallertool -x"}
		if noServe {
			args = append(args, "--no-serve")
		}
		_, out, errOut := runProcess(t, os.Args[0], env, args...)
		var got answerlayer.ExplainResult
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
		}
		if v := verdict(got); v != judge.Undocumented {
			t.Errorf("%v with the tool on the caller's PATH: %s, want %s", args, v, judge.Undocumented)
		}
	}
}

// TestReadersTakeAReadLease (issue 45, finding 18): a one-shot read
// beside a running serve (`index status --no-serve`, `index query
// --no-serve`, doctor, export) uses serve's Chroma under a read lease:
// serve neither holds its queries for it nor reloads after (a writer's
// lease still does: TestLease, TestFailedReloadRunsDegraded).
func TestReadersTakeAReadLease(t *testing.T) {
	smallIndex(t)
	stop, _, log := startServeOpts(t, servecmd.ServeOptions{Distro: "debian-12"})
	defer stop()
	for _, args := range [][]string{
		{"index", "status", "--no-serve", "--distro", "debian-12"},
		{"index", "query", "twiddle bits", "--no-serve", "--distro", "debian-12"},
		{"doctor", "--distro", "debian-12"},
		{"index", "export", t.TempDir(), "--distro", "debian-12"},
	} {
		if code, out, errOut := runCLI(t, args...); code != 0 {
			t.Errorf("%v beside serve: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if strings.Contains(log.String(), "a writer holds the index") || strings.Contains(log.String(), "reloaded") {
		t.Errorf("readers took serve's write lease:\n%s", log)
	}
}

// TestServeOfOtherModelsNotUsed (issue 45, finding 13): a reranker (or
// model) installed after serve started changes what the CLI would answer
// with; serve's health names the models it started with (models_id), so
// the CLI no longer uses its answers: it answers here and says why, once.
// Here the reranker's install directory gains a manifest (a stand-in for
// `cmdai model import` of a reranker).
func TestServeOfOtherModelsNotUsed(t *testing.T) {
	smallIndex(t)
	stop, c := startServe(t)
	defer stop()
	h, err := c.Health(context.Background())
	need(t, err)
	f := cmdutil.NewFactory(nil, os.Getenv, "")
	if h.Models == "" || h.Models != f.ModelsID(cmdutil.ModelOptions{}) {
		t.Fatalf("serve's models %q, the CLI's %q: want the same before any import", h.Models, f.ModelsID(cmdutil.ModelOptions{}))
	}
	args := []string{"index", "query", "twiddle the bits of a file", "--distro", "debian-12", "--json"}
	code, out, errOut := runCLI(t, args...)
	if code != 0 || strings.Contains(errOut, "other models") {
		t.Fatalf("before the import: exit %d %s %s", code, out, errOut)
	}
	dir, err := config.ModelDir(os.Getenv, embed.RerankerName)
	need(t, err)
	need(t, os.MkdirAll(dir, 0o755))
	need(t, os.WriteFile(filepath.Join(dir, embed.ManifestFile), []byte(`{"files":{}}`), 0o644))
	if got := f.ModelsID(cmdutil.ModelOptions{}); got == h.Models {
		t.Fatalf("a reranker manifest installed: models id unchanged %q", got)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 0 || strings.Count(errOut, "answers with other models than those installed now") != 1 {
		t.Errorf("after the import: exit %d\n%s%s; want an answer from here, saying why once", code, out, errOut)
	}
}

// TestWrittenIndexReadyForAnswers (issue 46: the first search after
// init took 8.6-26 s): init leaves built what answering reads on first
// use (the keyword index, the records' vectors), and serve builds the
// rest (the description vectors of its models) and answers a request of
// its own before it listens, so that no caller's first answer builds
// any of it.
func TestWrittenIndexReadyForAnswers(t *testing.T) {
	smallIndex(t)
	dir, err := config.KeywordDir(os.Getenv)
	need(t, err)
	count := func(pattern string) int {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		return len(m)
	}
	if count("*.checked.bm25") != 1 || count("*-records-*.vec") != 1 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("after init, %s holds %v: want the keyword index and the records' vectors", dir, entries)
	}
	startServe(t)
	if count("descriptions-*.vec") == 0 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("serve answers, and %s holds %v: want the description vectors built", dir, entries)
	}
}

// TestShortFlagWithItsValue (issue 46: `-k1` was refused, "unknown flag"):
// a one-letter flag takes its value attached, as gh and getopt take it.
func TestShortFlagWithItsValue(t *testing.T) {
	smallIndex(t)
	for _, args := range [][]string{
		{"search", twiddle, "-k1", "--json", "--distro", "debian-12"},
		{"index", "query", "-k1", twiddle, "--json", "--distro", "debian-12"},
	} {
		code, out, errOut := runCLI(t, args...)
		var res answerlayer.QueryResult
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Commands) != 1 {
			t.Errorf("%q: exit %d, %d commands %v\n%s%s", args, code, len(res.Commands), err, out, errOut)
		}
	}
}

// TestNoCloseMatchSaidSo (issue 46: "convert a video to mp4" answered
// xvinfo, iconv, as, with no sign that nothing installed does it): an
// answer whose nearest chunk is far from the request says so first, in
// text, --json (a field agents test) and through serve alike; a request
// the index answers does not.
func TestNoCloseMatchSaidSo(t *testing.T) {
	smallIndex(t)
	check := func(how string) {
		t.Helper()
		for _, c := range []struct {
			request string
			no      bool
		}{{twiddle, false}, {"convert a video to mp4", true}} {
			code, out, errOut := runCLI(t, "search", c.request, "--json", "--distro", "debian-12")
			var res answerlayer.QueryResult
			if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.NoCloseMatch != c.no || res.Closeness <= 0 {
				t.Errorf("%s %q: exit %d, no_close_match %v (closeness %.3f), want %v %v\n%s", how, c.request, code, res.NoCloseMatch, res.Closeness, c.no, err, errOut)
			}
			_, text, _ := runCLI(t, "search", c.request, "--distro", "debian-12")
			if strings.HasPrefix(text, answerlayer.NoCloseMatchLine) != c.no {
				t.Errorf("%s %q, text:\n%s", how, c.request, text)
			}
		}
	}
	check("one-shot")
	startServe(t)
	check("through serve")
}
