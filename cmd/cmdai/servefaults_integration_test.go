package main

// Integration tests of serve's lifecycle under faults (issue 30: a stale
// lock whose pid lives on, slow degraded requests, a failed reload, a
// serve killed under a writer's lease), with the real Chroma server and
// model.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/servecmd"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/testnet"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// TestStaleServeLockOfALivePid: serve was killed (SIGKILL) and left its
// socket and its lock file, whose pid now names another live process (a
// container restarted on the same volume, where serve was pid 1; here
// this test's sleep child). index status and index query do not wait for
// that phantom serve: they answer one-shot at once. The wait for a
// starting serve is made 10 minutes here, so any wait at all fails the
// test's guard instead of passing unseen. (Before: 20 s per dial, 41 s
// per query.)
func TestStaleServeLockOfALivePid(t *testing.T) {
	smallIndex(t)
	socket, err := config.ServeSocket(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	// the killed serve's socket: a file nobody listens on
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	stranger := exec.Command("sleep", "600")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Process.Kill(); stranger.Wait() })
	if err := os.WriteFile(socket+".lock", []byte(fmt.Sprintf("%d\n", stranger.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := serve.StartWait
	serve.StartWait = 10 * time.Minute
	t.Cleanup(func() { serve.StartWait = saved })

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "status", "--distro", "debian-12"}, "cmdai_linux_debian-12"},
		{[]string{"index", "query", "twiddle the bits of a file", "--distro", "debian-12", "-k", "1"}, "1. frob "},
	} {
		// a generous guard: a one-shot command starts its own Chroma
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		io, out, errOut := testIO()
		start := time.Now()
		code := run(ctx, append([]string{"cmdai"}, c.args...), io)
		took := time.Since(start)
		guard := ctx.Err()
		cancel()
		if guard != nil || code != 0 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v past a stale lock naming live pid %d: exit %d after %s (guard: %v)\n%s%s", c.args, stranger.Process.Pid, code, took.Round(time.Millisecond), guard, out, errOut)
		}
		t.Logf("%v: %s", c.args, took.Round(time.Millisecond))
	}
}

// slowPage is the page a slow disk serves: a FIFO the test feeds when it
// chooses (a man page on a hung network mount, say).
const slowPage = `.TH %[1]s 1
.SH NAME
%[2]s \- wait for a slow disk
.SH SYNOPSIS
.B %[2]s
[\fB\-q\fR]
.SH OPTIONS
.TP
\fB\-q\fR, \fB\-\-quiet\fR
say nothing
`

// feedReaders writes its page to each FIFO that has a reader (a writer
// opens without blocking only then) until stop, so that every request
// reading one ends, however late it got there.
func feedReaders(fifos []string, stop <-chan struct{}) {
	fed := make([]bool, len(fifos))
	for {
		for i, p := range fifos {
			if fed[i] {
				continue
			}
			f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				continue // ENXIO: nobody reads it yet
			}
			name := strings.TrimSuffix(filepath.Base(p), ".1")
			fmt.Fprintf(f, slowPage, strings.ToUpper(name), name)
			f.Close()
			fed[i] = true
		}
		select {
		case <-stop:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// hasReader tells whether a request has opened FIFO p and waits on it:
// a writer can open it without blocking. The writer stays open (the
// reader then waits for the page in read) and is returned.
func hasReader(p string) (*os.File, bool) {
	f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	return f, err == nil
}

// TestSlowDegradedRequestsDoNotBlock: serve without Chroma answers docs
// of commands it reads live from their pages; ten such requests whose
// pages sit on a slow disk (FIFOs the test feeds when it chooses) all
// read at once, and meanwhile a query, docs of another command and
// health are answered at once. Then the slow ones are answered too.
// (Before: every request took serve's write lock to see whether to
// retry Chroma, so the slow requests went one at a time and every other
// request queued behind them: 21 s for a query behind ten 2-s pages.)
func TestSlowDegradedRequestsDoNotBlock(t *testing.T) {
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("MANPATH", man)
	const slow = 10
	var fifos []string
	for i := range slow {
		name := fmt.Sprintf("slow%d", i)
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(man, "man1", name+".1")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	addr := testnet.ClosedPort(t)
	_, c, _ := startServeOpts(t, servecmd.ServeOptions{Distro: "debian-12", Chroma: cmdutil.ChromaOptions{URL: "http://" + addr}, RetryEvery: time.Hour})
	ctx := context.Background()
	if h, err := c.Health(ctx); err != nil || !h.Degraded {
		t.Fatalf("health: %+v %v; want degraded", h, err)
	}

	type answer struct {
		i   int
		doc search.CommandDoc
		err error
	}
	answers := make(chan answer, slow)
	var pending sync.WaitGroup
	pending.Add(slow)
	for i := range slow {
		go func() {
			defer pending.Done()
			doc, err := c.Docs(ctx, fmt.Sprintf("slow%d", i), "", false)
			answers <- answer{i, doc, err}
		}()
	}
	// the feeder ends every slow read however the test ends, so that
	// serve can stop
	stopFeeding := make(chan struct{})
	var feeder sync.WaitGroup
	release := func() {
		feeder.Add(1)
		go func() { defer feeder.Done(); feedReaders(fifos, stopFeeding) }()
	}
	released := false
	t.Cleanup(func() {
		if !released {
			release()
		}
		// serve stops (startServeOpts' cleanup, after this one) only
		// once the slow requests are over
		over := make(chan struct{})
		go func() { pending.Wait(); close(over) }()
		select {
		case <-over:
		case <-time.After(60 * time.Second):
		}
		close(stopFeeding)
		feeder.Wait()
	})

	var writers []*os.File
	defer func() {
		for _, f := range writers {
			f.Close()
		}
	}()
	reading := make([]bool, slow)
	for deadline := time.Now().Add(60 * time.Second); len(writers) < slow; time.Sleep(5 * time.Millisecond) {
		for i, p := range fifos {
			if reading[i] {
				continue
			}
			if f, ok := hasReader(p); ok {
				reading[i] = true
				writers = append(writers, f)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s only %d of %d slow requests read their page at once: they wait for each other", len(writers), slow)
		}
	}
	// all ten are reading their pages: the fast requests are answered
	fast, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := c.Query(fast, answerlayer.QueryRequest{Request: "twiddle the bits of a file with frob", K: 1})
	if err != nil || !res.Degraded || len(res.Commands) == 0 || res.Commands[0].Command != "frob" {
		t.Errorf("query beside ten slow requests: %+v %v; want frob, degraded", res, err)
	}
	doc, err := c.Docs(fast, "frob", "", false)
	if err != nil || !doc.Degraded || !hasRecord(doc, "--recursive") {
		t.Errorf("docs of frob beside ten slow requests: %+v %v", doc, err)
	}
	if h, err := c.Health(fast); err != nil || !h.Degraded {
		t.Errorf("health beside ten slow requests: %+v %v", h, err)
	}
	t.Logf("three fast requests beside ten slow ones: %s", time.Since(start).Round(time.Millisecond))

	for _, f := range writers {
		name := strings.TrimSuffix(filepath.Base(f.Name()), ".1")
		fmt.Fprintf(f, slowPage, strings.ToUpper(name), name)
		f.Close()
	}
	writers = nil
	released = true
	for range slow {
		a := <-answers
		if a.err != nil || !a.doc.Degraded || !hasRecord(a.doc, "--quiet") {
			t.Errorf("slow%d once its page came: %+v %v", a.i, a.doc, a.err)
		}
	}
}

// TestFailedReloadRunsDegraded: serve's private Chroma is killed, then a
// writer (index init) fails through serve's lease (exit 4); serve's
// reload after it finds Chroma gone: health says degraded with the
// reason, query, docs and explain are answered degraded from disk
// (status: Chroma's error, exit 4, never 500), writers are refused the
// lease; serve starts a private Chroma again by itself and answers from
// the index, not degraded. (Before: every answer was 500 with the raw
// error, health ok and not degraded, until serve was restarted.)
func TestFailedReloadRunsDegraded(t *testing.T) {
	smallIndex(t)
	stop, c, log := startServeOpts(t, servecmd.ServeOptions{Distro: "debian-12", RetryEvery: 5 * time.Second})
	ctx := context.Background()
	h, err := c.Health(ctx)
	if err != nil || h.DataDir == "" || h.Degraded {
		t.Fatalf("health: %+v %v", h, err)
	}
	if err := killServerOf(h.DataDir); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "index", "init", "--command", "ls", "--distro", "debian-12"); code != cmdutil.ExitUnreachable {
		t.Errorf("init with serve's Chroma dead: exit %d %s; want 4", code, errOut)
	}
	const request = "twiddle the bits of files recursively"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if h, err = c.Health(ctx); err == nil && !h.Writing && h.Degraded {
			break
		}
		if time.Now().After(deadline) {
			_, qerr := c.Query(ctx, answerlayer.QueryRequest{Request: request})
			t.Fatalf("health 30 s after the failed write: %+v %v; want degraded (a query answers: %v)", h, err, qerr)
		}
	}
	if !strings.Contains(h.DegradedReason, "stopped answering") || h.DataDir != "" {
		t.Errorf("health: %+v; want the reason and no data dir", h)
	}
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: "semantic"}); err != nil || !res.Degraded || !strings.Contains(res.DegradedReason, "keyword-only") {
		t.Errorf("query after the failed reload: %+v %v; want a degraded answer", res, err)
	}
	if doc, err := c.Docs(ctx, "frob", "", false); err != nil || !doc.Degraded || !hasRecord(doc, "--recursive") {
		t.Errorf("docs after the failed reload: %+v %v; want a degraded answer", doc, err)
	}
	if res, err := c.Explain(ctx, answerlayer.ExplainRequest{Line: "frob -r notes"}); err != nil || !res.Degraded {
		t.Errorf("explain after the failed reload: %+v %v; want a degraded answer", res, err)
	}
	var se *serve.Error
	if _, err := c.StatusOf(ctx, answerlayer.StatusRequest{Detailed: false}); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable {
		t.Errorf("status after the failed reload: %v; want Chroma's error, exit 4", err)
	}
	if l, err := c.Lease(ctx, false); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable {
		if l != nil {
			l.Close()
		}
		t.Errorf("lease after the failed reload: %v; want a refusal, exit 4", err)
	}
	// serve's retry starts a private Chroma again: only health is asked
	for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if h, err = c.Health(ctx); err == nil && !h.Degraded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %+v %v 120 s after the failed reload; want serve back on a new Chroma", h, err)
		}
	}
	if chroma.Answers(ctx, h.ChromaURL) != nil || h.DataDir == "" {
		t.Errorf("health once back: %+v", h)
	}
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: "semantic"}); err != nil || res.Degraded || len(res.Commands) == 0 {
		t.Errorf("query once serve is back: %+v %v; want a semantic answer", res, err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if !strings.Contains(log.String(), "Chroma stopped answering (reloading the index after a write)") || !strings.Contains(log.String(), ": answering from the index") {
		t.Errorf("serve's log:\n%s", log)
	}
}

// killServeAtProgress is an ErrOut that, at a build's first batch-mode
// progress line, kills (SIGKILL) a child serve and waits until its
// Chroma server (which gets the parent-death signal) no longer answers:
// serve gone under the writer's lease, at a known point.
type killServeAtProgress struct {
	serve     *exec.Cmd
	chromaURL string
	mu        sync.Mutex
	buf       bytes.Buffer
	killed    error
}

func (k *killServeAtProgress) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed == errNotYet && strings.Contains(string(p), `"event":"progress"`) {
		k.killed = k.kill()
	}
	return k.buf.Write(p)
}

func (k *killServeAtProgress) kill() error {
	if err := killPID(k.serve.Process.Pid); err != nil {
		return err
	}
	for deadline := time.Now().Add(15 * time.Second); chroma.Answers(context.Background(), k.chromaURL) == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("the killed serve's Chroma still answers")
		}
	}
	return nil
}

// TestWriterWhoseServeDies: serve is killed (SIGKILL; its Chroma dies
// with it) while index init writes through its lease: init exits 4 and
// says serve's Chroma stopped answering and what to do, not the client's
// raw text. (Before: exit 1, `upsert ...: connection refused`.)
func TestWriterWhoseServeDies(t *testing.T) {
	bin, man, _ := smallIndex(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("MANPATH", man)
	cmd, serveErr, h := childServe(t)
	killer := &killServeAtProgress{serve: cmd, chromaURL: h.ChromaURL, killed: errNotYet}
	io, out, _ := testIO()
	io.ErrOut = killer
	code := run(context.Background(), []string{"cmdai", "index", "init", "--batch-mode", "--force", "--distro", "debian-12", "--command", "frob"}, io)
	if killer.killed != nil {
		t.Fatalf("serve was not killed mid-write: %v (exit %d)\n%s\nserve: %s", killer.killed, code, killer.buf.String(), serveErr)
	}
	errOut := killer.buf.String()
	if code != cmdutil.ExitUnreachable {
		t.Errorf("exit %d, want %d:\n%s%s", code, cmdutil.ExitUnreachable, out, errOut)
	}
	for _, want := range []string{"the Chroma server of cmdai serve at " + h.ChromaURL + " stopped answering", "run the command again"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error does not say %q:\n%s", want, errOut)
		}
	}
	t.Logf("the error:\n%s", errOut)
}

// TestDeadChromaUnderServeRestarts (issue 45, finding 11): serve's
// private Chroma killed with SIGKILL and no writer coming. The next query
// is answered degraded from disk, health says degraded at once (it said
// ok for as long as no writer ran), and serve's retry starts a Chroma
// again within seconds, without a writer; then it answers from the index.
func TestDeadChromaUnderServeRestarts(t *testing.T) {
	smallIndex(t)
	stop, c, log := startServeOpts(t, servecmd.ServeOptions{Distro: "debian-12"})
	ctx := context.Background()
	h, err := c.Health(ctx)
	if err != nil || h.DataDir == "" || h.Degraded {
		t.Fatalf("health: %+v %v", h, err)
	}
	need(t, killServerOf(h.DataDir))
	killed := time.Now()
	const request = "twiddle the bits of files recursively"
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: "semantic"}); err != nil || !res.Degraded {
		t.Errorf("query with serve's Chroma dead: %+v %v; want a degraded answer", res, err)
	}
	if h, err = c.Health(ctx); err != nil || !h.Degraded || !strings.Contains(h.DegradedReason, "stopped answering") {
		t.Errorf("health right after that query: %+v %v; want degraded, saying why", h, err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if h, err = c.Health(ctx); err == nil && !h.Degraded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %+v %v 60 s after Chroma was killed; want serve back on a new Chroma", h, err)
		}
	}
	t.Logf("serve answered from a new Chroma %.1f s after the kill", time.Since(killed).Seconds())
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: "semantic"}); err != nil || res.Degraded || len(res.Commands) == 0 {
		t.Errorf("query once serve is back: %+v %v; want a semantic answer", res, err)
	}
	need(t, stop())
	if !strings.Contains(log.String(), "Chroma stopped answering (answering a request)") {
		t.Errorf("serve's log:\n%s", log)
	}
}
