package main

// Integration tests of the start-up races around the private Chroma's
// data directory (one holder at a time), with the real Chroma server and
// model: serve waits for another cmdai that holds the data, and
// `cmdai mcp` hands the index it holds to a serve that starts.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/servelock"
)

// syncBuffer is a log that a test reads while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// holdData holds this data home's index data as a one-shot command
// does: its private Chroma server, started by this process.
func holdData(t *testing.T) *chroma.Server {
	t.Helper()
	bin, err := chroma.FindBin("", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := config.ChromaDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := chroma.StartServer(context.Background(), chroma.ServerOptions{Bin: bin, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv
}

// spawnServeArgs starts `cmdai serve --distro debian-12 ARGS` in a child
// process and returns at once, with its log; the child is killed when
// the test ends.
func spawnServeArgs(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI="+strings.Join(append([]string{"serve", "--distro", "debian-12"}, args...), "\n"))
	log := &syncBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, log
}

// waitFor polls cond every 50 ms for up to d; false when it never held.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// TestServeWaitsForDataHolder: serve started while another cmdai holds
// the index data says which one (its pid) and waits, holding its own
// lock (clients see a starting serve); once the holder lets go, serve
// starts and answers. With --wait 0 it exits 6 at once, naming the
// holder and what to do; SIGTERM during the wait stops it cleanly.
func TestServeWaitsForDataHolder(t *testing.T) {
	smallIndex(t)
	holder := holdData(t)
	socket, _ := config.ServeSocket(os.Getenv)

	code, _, stderr := runCLI(t, "serve", "--distro", "debian-12", "--wait", "0")
	if code != cmdutil.ExitBusy || !strings.Contains(stderr, "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(stderr, "--wait") {
		t.Errorf("serve --wait 0 on held data: exit %d, %s; want 6 naming the holder (pid %d) and --wait", code, stderr, os.Getpid())
	}

	cmd, log := spawnServeArgs(t, "--wait", "1m")
	if !waitFor(60*time.Second, func() bool { return strings.Contains(log.String(), "waiting up to 1m0s") }) {
		t.Fatalf("serve did not say it waits: %s", log)
	}
	if !strings.Contains(log.String(), "pid "+strconv.Itoa(os.Getpid())) || !servelock.Starting(socket) {
		t.Errorf("waiting serve: starting %v, log %s; want its lock held and the holder named", servelock.Starting(socket), log)
	}
	time.Sleep(time.Second) // a one-shot command's hold
	holder.Stop()
	c, err := serve.Dial(context.Background(), socket) // waits for the starting serve
	if err != nil {
		t.Fatalf("serve after the holder let go: %v\n%s", err, log)
	}
	defer c.Close()
	res, err := c.Query(context.Background(), answerlayer.QueryRequest{Request: "twiddle the bits of a file", K: 1})
	if err != nil || len(res.Commands) != 1 || res.Commands[0].Command != "frob" {
		t.Errorf("query after the wait: %+v %v", res, err)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGINT: %v\n%s", err, log)
	}
}

// TestServeStopsWhileWaiting: SIGTERM while serve waits for the data
// stops it at once, exit 0, and frees its lock.
func TestServeStopsWhileWaiting(t *testing.T) {
	smallIndex(t)
	holdData(t)
	socket, _ := config.ServeSocket(os.Getenv)
	cmd, log := spawnServeArgs(t)
	if !waitFor(60*time.Second, func() bool { return strings.Contains(log.String(), "waiting up to") }) {
		t.Fatalf("serve did not say it waits: %s", log)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil || !strings.Contains(log.String(), "cmdai serve: stopped") {
		t.Errorf("SIGTERM during the wait: %v\n%s; want exit 0, stopped", err, log)
	}
	if servelock.Starting(socket) {
		t.Errorf("the stopped serve still looks starting")
	}
}

// mcpHolder is who index_status says holds the index.
func mcpHolder(t *testing.T, call func(toolCall) (string, bool)) string {
	t.Helper()
	text, isErr := call(toolCall{"index_status", nil})
	if isErr {
		t.Fatalf("index_status: %s", text)
	}
	_, h, _ := strings.Cut(text, "held by ")
	return strings.TrimSpace(h)
}

// mcpHoldingIndex starts an MCP session that holds the index itself (its
// own private Chroma on this data home's directory), and returns its
// answer to the search that opened it.
func mcpHoldingIndex(t *testing.T) (call func(toolCall) (string, bool), search toolCall, answer string) {
	t.Helper()
	call, _ = mcpSession(t, cmdutil.ChromaOptions{})
	search = toolCall{"search_commands", map[string]any{"query": "twiddle the bits of a file", "k": 2}}
	answer, isErr := call(search)
	if isErr || !strings.Contains(answer, "frob") {
		t.Fatalf("search held by mcp: %s", answer)
	}
	if h := mcpHolder(t, call); h != "this process (cmdai mcp)" {
		t.Fatalf("before serve, held by %q", h)
	}
	return call, search, answer
}

// TestMCPHandsIndexToServe: a serve started while `cmdai mcp` holds the
// index comes up without a call (mcp's watcher closes its index, freeing
// the data); the next calls answer through serve, the same text.
func TestMCPHandsIndexToServe(t *testing.T) {
	smallIndex(t)
	call, search, local := mcpHoldingIndex(t)
	_, log := spawnServeArgs(t)
	socket, _ := config.ServeSocket(os.Getenv)
	listening := func() bool {
		c, err := serve.Dial(context.Background(), socket)
		c.Close()
		return err == nil
	}
	if !waitFor(60*time.Second, listening) {
		t.Fatalf("serve did not start beside mcp: %s", log)
	}
	if !strings.Contains(log.String(), "waiting up to") {
		t.Logf("serve found the data free at once (mcp let go first): %s", log)
	}
	if got, isErr := call(search); isErr || got != local {
		t.Errorf("search after the handover: error %v\n%s\nwant:\n%s", isErr, got, local)
	}
	if h := mcpHolder(t, call); !strings.HasPrefix(h, "cmdai serve on ") {
		t.Errorf("after the handover, held by %q", h)
	}
}

// TestMCPCallDuringHandover: a call that comes while serve is starting
// (waiting for the data mcp holds) closes mcp's index, waits for serve
// and is answered through it: no error, the same text.
func TestMCPCallDuringHandover(t *testing.T) {
	smallIndex(t)
	call, search, local := mcpHoldingIndex(t)
	_, log := spawnServeArgs(t)
	socket, _ := config.ServeSocket(os.Getenv)
	if !waitFor(60*time.Second, func() bool { return servelock.Starting(socket) }) {
		t.Fatalf("serve did not take its lock: %s", log)
	}
	for i := range 3 {
		if got, isErr := call(search); isErr || got != local {
			t.Errorf("search %d during the handover: error %v\n%s\nwant:\n%s\nserve: %s", i, isErr, got, local, log)
		}
	}
	if h := mcpHolder(t, call); !strings.HasPrefix(h, "cmdai serve on ") {
		t.Errorf("after the handover, held by %q\nserve: %s", h, log)
	}
}
