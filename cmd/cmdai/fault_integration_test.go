package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/diskspace"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// privateServerOf waits (up to 60 s) for a cmdai to start its private
// server over dataDir and returns the server's pid and a Store on it.
func privateServerOf(t *testing.T, dataDir string) (int, *chroma.Store) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		raw, err := os.ReadFile(filepath.Join(dataDir, "cmdai.pid"))
		f := strings.Fields(string(raw))
		if err != nil || len(f) < 3 {
			continue
		}
		pid, _ := strconv.Atoi(f[1])
		// jailed, it is reached through its socket; else on its port
		addr := "http://127.0.0.1:" + f[2]
		if _, err := os.Stat(chroma.SocketPathOf(dataDir)); err == nil {
			addr = chroma.SocketAddress(chroma.SocketPathOf(dataDir))
		}
		st, err := chroma.Connect(context.Background(), chroma.Config{URL: addr, Timeout: 5 * time.Second})
		if err == nil {
			return pid, st
		}
	}
	t.Fatalf("no private server came up over %s", dataDir)
	return 0, nil
}

type cliResult struct {
	code     int
	out, err string
}

// pauseAt is an ErrOut that, at the first write holding mark, signals
// reached and waits for resume before it returns: the command stops at
// a known point until the test has acted.
type pauseAt struct {
	mark            string
	reached, resume chan struct{}
	mu              sync.Mutex
	once            sync.Once
	buf             strings.Builder
}

func (p *pauseAt) Write(b []byte) (int, error) {
	if strings.Contains(string(b), p.mark) {
		p.once.Do(func() {
			close(p.reached)
			<-p.resume
		})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.Write(b)
}

func (p *pauseAt) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

// importWhile starts an import of tarball with small write batches and
// calls interfere once its first batch is in the temporary collection,
// before the next is written: the import's progress bar (stderr made a
// terminal) is first drawn right after a batch is written, and the draw
// waits for the interference, so it comes mid-load on a machine of any
// speed. It returns the import's result; err is stderr from cmdai's
// message on (the bar's drawing before it left out).
func importWhile(t *testing.T, dataDir, tarball string, interfere func(serverPID int), extra ...string) cliResult {
	t.Helper()
	io, out, _ := testIO()
	bar := &pauseAt{mark: "importing: ", reached: make(chan struct{}), resume: make(chan struct{})}
	io.ErrOut, io.ErrTTY = bar, true
	var resumeOnce sync.Once
	resume := func() { resumeOnce.Do(func() { close(bar.resume) }) }
	defer resume() // a failed test does not leave the import waiting
	done := make(chan cliResult, 1)
	go func() {
		code := run(context.Background(), append([]string{"cmdai", "index", "import", tarball, "--allow-unsigned", "--write-batch", "4"}, extra...), io)
		errOut := bar.String()
		if i := strings.LastIndex(errOut, "cmdai: "); i >= 0 {
			errOut = errOut[i:]
		}
		done <- cliResult{code, out.String(), errOut}
	}()
	select {
	case <-bar.reached:
	case r := <-done:
		t.Fatalf("the import ended before its progress bar was drawn: exit %d %s", r.code, r.err)
	case <-time.After(120 * time.Second):
		t.Fatal("the import wrote no batch in 120 s")
	}
	pid, st := privateServerOf(t, dataDir)
	c, err := st.OpenCollection(context.Background(), "cmdai_linux_debian-12__import")
	if err != nil {
		t.Fatalf("no temporary collection at the first batch: %v", err)
	}
	if k, err := c.Count(context.Background()); k != 4 {
		t.Fatalf("the temporary collection holds %d records (%v) at the first batch, want 4", k, err)
	}
	st.Close()
	interfere(pid)
	resume()
	select {
	case r := <-done:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("the import still runs 60 s after the interference")
		return cliResult{}
	}
}

// killServer kills (SIGKILL) the server pid and waits (up to 10 s) until
// it has exited, so that what follows meets a dead server.
func killServer(t *testing.T, pid int) {
	t.Helper()
	if err := killPID(pid); err != nil {
		t.Fatal(err)
	}
}

// TestServerDiesMidImport: the private server killed (SIGKILL) while an
// import loads gives "the Chroma server stopped" with the end of its log,
// no escape codes, exit 4; the next command starts a new server and the
// previous index answers as before.
func TestServerDiesMidImport(t *testing.T) {
	realEnv(t)
	data := t.TempDir()
	t.Setenv("CMDAI_CHROMA_DATA", data)
	initSmall(t, "--distro", "debian-12")
	before := answers(t, "--distro", "debian-12")
	n := records(t, "--distro", "debian-12")
	rel := t.TempDir()
	if code, _, errOut := runCLI(t, "index", "export", rel, "--distro", "debian-12"); code != 0 {
		t.Fatal(errOut)
	}
	r := importWhile(t, data, filepath.Join(rel, "chroma-index-debian-12.tar.gz"), func(pid int) {
		killServer(t, pid)
	})
	if r.code != cmdutil.ExitUnreachable {
		t.Errorf("exit %d, want %d", r.code, cmdutil.ExitUnreachable)
	}
	for _, want := range []string{"the Chroma server stopped", "last lines of " + filepath.Join(data, "cmdai-chroma.log"), "run the command again"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("error does not say %q:\n%s", want, r.err)
		}
	}
	if strings.Contains(r.err, "\x1b") || strings.Contains(r.err, "EOF") {
		t.Errorf("error holds escape codes or the client's raw text:\n%q", r.err)
	}
	t.Logf("the error:\n%s", r.err)
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after the server died: %d records, want %d", got, n)
	}
	sameAnswers(t, "after the server died", before, answers(t, "--distro", "debian-12"))
}

// killAtProgress is an ErrOut that, at a build's first batch-mode
// progress line, kills (SIGKILL) the private server over dataDir and
// waits until it is gone before the build goes on: a death mid-build at
// a known point, without timing. The build's last steps (the final
// writes, the count, the swap) come after its last progress line.
type killAtProgress struct {
	dataDir string
	mu      sync.Mutex
	buf     strings.Builder
	killed  error // why no kill happened, or nil once one did
}

func (k *killAtProgress) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed == errNotYet && strings.Contains(string(p), `"event":"progress"`) {
		k.killed = killServerOf(k.dataDir)
	}
	return k.buf.Write(p)
}

var errNotYet = errors.New("no progress line came")

// killServerOf kills the private server of dataDir and waits (up to 10 s)
// until it has exited.
func killServerOf(dataDir string) error {
	raw, err := os.ReadFile(filepath.Join(dataDir, "cmdai.pid"))
	if err != nil {
		return err
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return fmt.Errorf("cmdai.pid holds %q", raw)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return err
	}
	return killPID(pid)
}

// killPID kills (SIGKILL) pid and waits (up to 10 s) until it has exited.
func killPID(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(stat)
		// gone, or a zombie: exited, not yet reaped
		if err != nil || strings.Contains(string(b), ") Z ") {
			return nil
		}
	}
	return fmt.Errorf("process %d still runs 10 s after SIGKILL", pid)
}

// TestServerDiesMidForceInit: the private server killed (SIGKILL) while
// `init --force` builds over an index gives "the Chroma server stopped"
// with the end of its log, no escape codes, exit 4; the next command
// starts a new server and the previous index answers as before; init
// --force run again completes and leaves no temporary collection.
func TestServerDiesMidForceInit(t *testing.T) {
	realEnv(t)
	data := t.TempDir()
	t.Setenv("CMDAI_CHROMA_DATA", data)
	initSmall(t, "--distro", "debian-12")
	before := answers(t, "--distro", "debian-12")
	n := records(t, "--distro", "debian-12")

	args := []string{"cmdai", "index", "init", "--batch-mode", "--force", "--distro", "debian-12"}
	for _, c := range shipCommands {
		args = append(args, "--command", c)
	}
	killer := &killAtProgress{dataDir: data, killed: errNotYet}
	io, out, _ := testIO()
	io.ErrOut = killer
	code := run(context.Background(), args, io)
	if killer.killed != nil {
		t.Fatalf("the server was not killed mid-build: %v (exit %d)\n%s", killer.killed, code, killer.buf.String())
	}
	errOut := killer.buf.String()
	if code != cmdutil.ExitUnreachable {
		t.Errorf("exit %d, want %d:\n%s%s", code, cmdutil.ExitUnreachable, out, errOut)
	}
	for _, want := range []string{"the Chroma server stopped", "last lines of " + filepath.Join(data, "cmdai-chroma.log"), "run the command again"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "\x1b") || strings.Contains(errOut, "EOF") {
		t.Errorf("error holds escape codes or the client's raw text:\n%q", errOut)
	}
	t.Logf("the error:\n%s", errOut)
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after the server died: %d records, want %d", got, n)
	}
	sameAnswers(t, "after the server died", before, answers(t, "--distro", "debian-12"))
	// the kill came mid-build: the build aside is there, shown as such
	code, statusOut, _ := runCLI(t, "index", "status", "--distro", "debian-12")
	if code != 0 || !strings.Contains(statusOut, "* cmdai_linux_debian-12: ") || !strings.Contains(statusOut, "cmdai_linux_debian-12__build: ") || !strings.Contains(statusOut, "temporary") {
		t.Errorf("status after the server died: exit %d\n%s", code, statusOut)
	}

	// The next init --force completes and swaps its build in.
	initSmall(t, "--distro", "debian-12", "--force")
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after init --force: %d records, want %d", got, n)
	}
	if names := collectionNames(t); strings.Join(names, " ") != "cmdai_linux_debian-12" {
		t.Errorf("collections after init --force: %v", names)
	}
	sameAnswers(t, "after init --force", before, answers(t, "--distro", "debian-12"))
}

// TestRemoteServerDiesMidImport: a --chroma-url server that goes away
// mid-import is exit 4 with its URL, not the client's raw EOF; once it
// runs again, the previous index answers as before.
func TestRemoteServerDiesMidImport(t *testing.T) {
	realEnv(t)
	dir := t.TempDir()
	bin, _ := chroma.FindBin("", os.Getenv)
	srv, err := chroma.StartServer(context.Background(), chroma.ServerOptions{Bin: bin, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	url := "--chroma-url=" + srv.URL
	initSmall(t, url, "--distro", "debian-12")
	before := answers(t, url, "--distro", "debian-12")
	n := records(t, url, "--distro", "debian-12")
	rel := t.TempDir()
	if code, _, errOut := runCLI(t, "index", "export", rel, url, "--distro", "debian-12"); code != 0 {
		t.Fatal(errOut)
	}
	r := importWhile(t, dir, filepath.Join(rel, "chroma-index-debian-12.tar.gz"), func(pid int) {
		killServer(t, pid)
	}, url)
	t.Logf("the error:\n%s", r.err)
	if r.code != cmdutil.ExitUnreachable || !strings.Contains(r.err, "the Chroma server at "+srv.URL+" stopped answering") || strings.Contains(r.err, "EOF") {
		t.Errorf("exit %d, want %d:\n%s", r.code, cmdutil.ExitUnreachable, r.err)
	}
	srv.Stop()
	again, err := chroma.StartServer(context.Background(), chroma.ServerOptions{Bin: bin, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Stop() })
	url = "--chroma-url=" + again.URL
	if got := records(t, url, "--distro", "debian-12"); got != n {
		t.Errorf("after the server went away: %d records, want %d", got, n)
	}
	sameAnswers(t, "after the server went away", before, answers(t, url, "--distro", "debian-12"))
}

// smallDisk mounts a tmpfs of size (e.g. "64m") and returns it; the test
// unmounts it. It needs root, as the CI machine and `make test` here have.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a %s tmpfs on %s (the disk-full test needs root, as `make test` on the CI machine has): %v %s", size, dir, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file on dir's disk until only leave bytes are free (all
// of them when leave is 0) and returns its path.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	_, free := diskspace.DiskOf(dir)
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<16)
	for left := free - leave; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), left)]); err != nil {
			break // full
		}
	}
	return path
}

// TestDiskFull: on a small disk, init and import that would not fit are
// refused before they write, with the mount point, the space needed and
// free, and what to do; a disk that fills while an import loads is
// reported the same way, not as Chroma's raw HTTP 500. The previous index
// answers as before every time.
func TestDiskFull(t *testing.T) {
	realEnv(t)
	disk := smallDisk(t, "64m")
	data := filepath.Join(disk, "chroma")
	t.Setenv("CMDAI_CHROMA_DATA", data)
	initSmall(t, "--distro", "debian-12")
	before := answers(t, "--distro", "debian-12")
	n := records(t, "--distro", "debian-12")
	rel := t.TempDir()
	if code, _, errOut := runCLI(t, "index", "export", rel, "--distro", "debian-12"); code != 0 {
		t.Fatal(errOut)
	}
	tarball := filepath.Join(rel, "chroma-index-debian-12.tar.gz")
	unchanged := func(what string) {
		t.Helper()
		if got := records(t, "--distro", "debian-12"); got != n {
			t.Errorf("%s: %d records, want %d", what, got, n)
		}
		sameAnswers(t, what, before, answers(t, "--distro", "debian-12"))
	}

	// Seen coming: 1 MB left.
	filler := fill(t, disk, 1<<20)
	want := "no space left on " + disk + " (need about "
	args := []string{"index", "init", "--batch-mode", "--distro", "debian-12", "--force"}
	for _, c := range shipCommands {
		args = append(args, "--command", c)
	}
	for _, cmd := range [][]string{args, {"index", "import", tarball, "--allow-unsigned"}} {
		code, _, errOut := runCLI(t, cmd...)
		t.Logf("%s on a full disk: exit %d %s", cmd[1], code, errOut)
		if code != cmdutil.ExitFailure || !strings.Contains(errOut, want) || !strings.Contains(errOut, "MB free): free some space or use --chroma-data on a larger disk") {
			t.Errorf("%s on a full disk: exit %d\n%s", cmd[1], code, errOut)
		}
	}
	os.Remove(filler)
	unchanged("after refused writes")

	// Not seen coming: the disk fills while the import loads.
	r := importWhile(t, data, tarball, func(int) { filler = fill(t, disk, 0) })
	os.Remove(filler)
	t.Logf("the error:\n%s", r.err)
	if r.code == 0 || !strings.Contains(r.err, "no space left on "+disk) || strings.Contains(r.err, "Error (500)") {
		t.Errorf("disk filled during the import: exit %d\n%s", r.code, r.err)
	}
	unchanged("after a disk that filled")
}
