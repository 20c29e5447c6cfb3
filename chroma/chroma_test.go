package chroma

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/internal/procgroup"
	"github.com/cmdai/cmdai/internal/testmode"
	"github.com/cmdai/cmdai/internal/testnet"
)

// chromaBin finds the real server. A test that needs it fails when it is
// missing, never skips: a skip would hide a missing install step
// (`make chroma`, run by `make test`, installs it).
func chromaBin(t testing.TB) string {
	t.Helper()
	testmode.Heavy(t, "the Chroma server")
	if os.Getenv("CMDAI_TOOLS") == "" {
		t.Setenv("CMDAI_TOOLS", filepath.Join("..", ".tools"))
	}
	bin, err := FindBin("", os.Getenv)
	if err != nil {
		t.Fatalf("%v (run the tests with `make test`, which installs Chroma)", err)
	}
	return bin
}

func startTestServer(t *testing.T, dir string) *Server {
	t.Helper()
	s, err := StartServer(context.Background(), ServerOptions{Bin: chromaBin(t), DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

func TestServerLockStopRestart(t *testing.T) {
	dir := t.TempDir()
	s := startTestServer(t, dir)
	if !strings.HasPrefix(s.Version, "1.") {
		t.Errorf("server version %q, want 1.x", s.Version)
	}
	// A second server on the same directory is refused, with the fix.
	_, err := StartServer(context.Background(), ServerOptions{Bin: chromaBin(t), DataDir: dir})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second server on %s: err = %v, want ErrLocked", dir, err)
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "--chroma-url") {
		t.Errorf("lock error should name the owner and the way out: %v", err)
	}
	pid := s.PID()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if procgroup.Alive(pid) {
		t.Fatalf("server pid %d still alive after Stop", pid)
	}
	if _, err := os.Stat(filepath.Join(dir, datalock.PIDName)); !os.IsNotExist(err) {
		t.Errorf("pid file left behind: %v", err)
	}
	// The directory is free again, and its data is still there.
	s2 := startTestServer(t, dir)
	if err := s2.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestBrokenServerBinary(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "chroma")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'boom: cannot start' >&2\nexit 3\n"), 0o755)
	_, err := StartServer(context.Background(), ServerOptions{Bin: fake, DataDir: filepath.Join(dir, "data")})
	if !errors.Is(err, ErrServerStart) || !strings.Contains(err.Error(), "boom: cannot start") {
		t.Fatalf("err = %v, want ErrServerStart with the server's log", err)
	}
	// The lock was released: a retry gets the same clear error, not "in use".
	_, err = StartServer(context.Background(), ServerOptions{Bin: fake, DataDir: filepath.Join(dir, "data")})
	if errors.Is(err, ErrLocked) {
		t.Fatalf("lock not released after a failed start: %v", err)
	}
	if _, err := FindBin(filepath.Join(dir, "missing"), os.Getenv); !errors.Is(err, ErrNoServerBinary) || !strings.Contains(err.Error(), "pipx install chromadb=="+ChromaVersion) || !strings.Contains(err.Error(), "cmdai doctor") {
		t.Errorf("FindBin(missing) = %v", err)
	}
}

// TestKilledOwnerLeavesNoServer runs StartServer in a child process (this
// test binary, re-executed), kills that child with SIGKILL, and checks
// that its server goes too and the directory can be used again.
func TestKilledOwnerLeavesNoServer(t *testing.T) {
	bin := chromaBin(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "CMDAI_TEST_OWNER_DIR="+dir, "CMDAI_CHROMA_BIN="+bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the helper to report its server's pid.
	buf := make([]byte, 0, 4096)
	var serverPID int
	deadline := time.Now().Add(120 * time.Second)
	for serverPID == 0 && time.Now().Before(deadline) {
		chunk := make([]byte, 512)
		n, err := out.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for _, line := range strings.Split(string(buf), "\n") {
			if p, ok := strings.CutPrefix(line, "SERVER_PID="); ok {
				serverPID, _ = strconv.Atoi(strings.TrimSpace(p))
			}
		}
		if err != nil {
			break
		}
	}
	if serverPID == 0 {
		cmd.Process.Kill()
		t.Fatalf("helper did not start a server: %s", buf)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// Linux: the parent-death signal ends it. Elsewhere: the next start
	// finds the orphan through the pid file and stops it.
	s, err := StartServer(context.Background(), ServerOptions{Bin: bin, DataDir: dir})
	if err != nil {
		t.Fatalf("start after the owner was killed: %v", err)
	}
	defer s.Stop()
	datalock.WaitGone(serverPID, 10*time.Second)
	if procgroup.Alive(serverPID) {
		t.Fatalf("server %d of the killed owner still runs", serverPID)
	}
}

// TestMain doubles as the probe of TestPrivateServerOnlyItsOwnerReaches
// (CMDAI_TEST_PROBE), the helper of TestNoNamespaceStartsExposedAndSaysSo
// (CMDAI_TEST_NO_USERNS_DIR) and the helper process of TestKilledOwnerLeavesNoServer:
// re-executed with CMDAI_TEST_OWNER_DIR set, it starts a server over that
// directory, reports the server's pid and waits to be killed.
func TestMain(m *testing.M) {
	if spec := os.Getenv("CMDAI_TEST_PROBE"); spec != "" {
		runProbe(spec)
	}
	if dir := os.Getenv("CMDAI_TEST_NO_USERNS_DIR"); dir != "" {
		runWithoutUserNamespaces(dir)
	}
	if dir := os.Getenv("CMDAI_TEST_OWNER_DIR"); dir != "" {
		s, err := StartServer(context.Background(), ServerOptions{Bin: os.Getenv("CMDAI_CHROMA_BIN"), DataDir: dir})
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("SERVER_PID=" + strconv.Itoa(s.PID()) + "\n")
		time.Sleep(5 * time.Minute) // until killed
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestConnectUnreachable(t *testing.T) {
	start := time.Now()
	_, err := Connect(context.Background(), Config{URL: "http://" + testnet.ClosedPort(t)})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s to give up", d)
	}
}

func unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

func TestStoreRoundTrip(t *testing.T) {
	s := startTestServer(t, t.TempDir())
	ctx := context.Background()
	st, err := Connect(ctx, Config{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.MaxBatchSize() < 100 {
		t.Errorf("max batch size %d", st.MaxBatchSize())
	}
	if _, err := st.OpenCollection(ctx, "cmdai_linux_test-1"); !errors.Is(err, ErrNoCollection) {
		t.Fatalf("open missing: %v", err)
	}
	meta := map[string]any{"model": "all-MiniLM-L6-v2", "dims": 4, "distro": "test-1"}
	c, err := st.CreateCollection(ctx, "cmdai_linux_test-1", meta)
	if err != nil {
		t.Fatal(err)
	}
	// Write in batches smaller than the records, as against a server
	// with a small limit.
	st.maxBatch = 2
	recs := []Record{
		{ID: "a", Document: "alpha", Metadata: map[string]any{"command": "ls", "n": 1, "gnu": true, "aliases": []string{"dir", "vdir"}}, Embedding: unit(1, 0, 0, 0)},
		{ID: "b", Document: "beta", Metadata: map[string]any{"command": "grep"}, Embedding: unit(0, 1, 0, 0)},
		{ID: "c", Document: "gamma", Metadata: map[string]any{"command": "tar"}, Embedding: unit(1, 1, 0, 0)},
		{ID: "d", Document: "delta", Metadata: map[string]any{"command": "find"}, Embedding: unit(0, 0, 1, 0)},
		{ID: "e", Document: "epsilon", Metadata: map[string]any{"command": "wc"}, Embedding: unit(0, 0, 0, 1)},
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	// Upserting the same ids again updates in place.
	recs[0].Document = "alpha v2"
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Count(ctx); err != nil || n != len(recs) {
		t.Fatalf("count = %d, %v; want %d", n, err, len(recs))
	}
	// Reopen: metadata survives and the space is inner product (on unit
	// vectors, the cosine distance).
	c, err = st.OpenCollection(ctx, "cmdai_linux_test-1")
	if err != nil {
		t.Fatal(err)
	}
	got := c.Metadata()
	if got["model"] != "all-MiniLM-L6-v2" || got["distro"] != "test-1" || got["hnsw:space"] != string(Space) {
		t.Errorf("metadata = %v", got)
	}
	hits, err := c.Query(ctx, unit(1, 0.1, 0, 0), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].ID != "a" || hits[1].ID != "c" {
		t.Fatalf("hits = %+v", hits)
	}
	if hits[0].Document != "alpha v2" || hits[0].Metadata["command"] != "ls" || hits[0].Metadata["aliases"] != "dir,vdir" || hits[0].Metadata["gnu"] != true {
		t.Errorf("first hit = %+v", hits[0])
	}
	// Cosine distances (1 - a.b of unit vectors). In L2 space the
	// orthogonal "d" would be at ~2, not 1.
	wantA := 1 - 1/math.Sqrt(1.01)
	if math.Abs(hits[0].Distance-wantA) > 1e-4 {
		t.Errorf("distance to a = %v, want %v (cosine space)", hits[0].Distance, wantA)
	}
	far, _ := c.Query(ctx, unit(0, 0, 0, 1), 5)
	for _, h := range far {
		if h.ID == "d" && math.Abs(h.Distance-1) > 1e-4 {
			t.Errorf("distance to orthogonal d = %v, want 1", h.Distance)
		}
	}
	// Read everything back with embeddings, in pages.
	var all []Record
	for off := 0; ; off += 2 {
		page, err := c.GetPage(ctx, off, 2, Include{Documents: true, Embeddings: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < 2 {
			break
		}
	}
	if len(all) != len(recs) {
		t.Fatalf("read back %d records", len(all))
	}
	for _, r := range all {
		if len(r.Embedding) != 4 || r.Metadata["command"] == nil {
			t.Errorf("record %+v", r)
		}
	}
	if err := c.Delete(ctx, []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Count(ctx); n != 2 {
		t.Errorf("count after delete = %d", n)
	}
	if err := c.SetMetadata(ctx, map[string]any{"model": "m2"}); err != nil {
		t.Fatal(err)
	}
	if err := st.RenameCollection(ctx, "cmdai_linux_test-1", "cmdai_linux_test-2"); err != nil {
		t.Fatal(err)
	}
	list, err := st.ListCollections(ctx, "cmdai_")
	if err != nil || len(list) != 1 || list[0].Name != "cmdai_linux_test-2" || list[0].Count != 2 || list[0].Metadata["model"] != "m2" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if list[0].Metadata["hnsw:space"] != string(Space) {
		t.Errorf("space lost on metadata update: %v", list[0].Metadata)
	}
	if err := st.DeleteCollection(ctx, "cmdai_linux_test-2"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteCollection(ctx, "cmdai_linux_test-2"); !errors.Is(err, ErrNoCollection) {
		t.Errorf("second delete: %v", err)
	}
}

// TestPrivateServerWithoutThePythonPackage checks, on the installed
// Chroma, that the private server runs from the bindings and that
// chromadb's Python dependencies are not loaded into it.
func TestPrivateServerWithoutThePythonPackage(t *testing.T) {
	s := startTestServer(t, t.TempDir())
	if runtime.GOOS != "linux" {
		return // no /proc to look into; the server answered, which is the rest
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmdline), "chromadb_rust_bindings.cli") {
		t.Errorf("server command line %q: not the lean launcher (is .tools/chroma a pip venv?)", cmdline)
	}
	maps, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{"chromadb_rust_bindings", "_multiarray_umath", "cygrpc", "_pydantic_core"} {
		if got := strings.Contains(string(maps), lib); got != (lib == "chromadb_rust_bindings") {
			t.Errorf("%s loaded: %v", lib, got)
		}
	}
}

func waitGone(pid int, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end) && procgroup.Alive(pid); {
		time.Sleep(50 * time.Millisecond)
	}
}
