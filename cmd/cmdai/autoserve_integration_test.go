package main

// Integration tests of the serve a read command starts in the background
// (issue #33): real processes (this test binary runs as cmdai, see
// TestMain), the real Chroma server and model.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve"
)

// cliChild runs cmdai (this binary, exe) with args in a child process,
// with this process's environment changed by env ("K=V" sets K, "-K"
// unsets it), and waits for it.
func cliChild(t *testing.T, exe string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(env, func(e string) bool { return e == "-"+k || strings.HasPrefix(e, k+"=") }) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, e := range env {
		if !strings.HasPrefix(e, "-") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "CMDAI_TEST_CLI="+strings.Join(args, "\n"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// waitServe waits until a serve answers on this home's socket and gives
// its health.
func waitServe(t *testing.T, within time.Duration) serve.Health {
	t.Helper()
	socket, _ := config.ServeSocket(os.Getenv)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := serve.Dial(context.Background(), socket); err == nil {
			h, err := c.Health(context.Background())
			c.Close()
			if err == nil {
				return h
			}
		}
	}
	t.Fatalf("no serve answered on %s within %s", socket, within)
	return serve.Health{}
}

// backgroundServes are the pids of this home's `serve --background`
// processes.
func backgroundServes(t *testing.T) []int {
	t.Helper()
	home := "CMDAI_HOME=" + os.Getenv("CMDAI_HOME")
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err1 := os.ReadFile(d + "/cmdline")
		environ, err2 := os.ReadFile(d + "/environ")
		if err1 != nil || err2 != nil || !bytes.Contains(cmdline, []byte("serve\x00--background")) {
			continue
		}
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if string(kv) == home {
				pid, _ := strconv.Atoi(filepath.Base(d))
				if !zombie(pid) {
					pids = append(pids, pid)
				}
			}
		}
	}
	return pids
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) == 0 || f[0] == "Z"
}

// gone waits until no process of pids is left.
func gone(t *testing.T, within time.Duration, what string, pids ...int) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		left := 0
		for _, p := range pids {
			if syscall.Kill(p, 0) == nil && !zombie(p) {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: pids %v still run after %s", what, pids, within)
		}
	}
}

// killServes stops every background serve of this home when the test
// ends: none outlives `make test`.
func killServes(t *testing.T) {
	t.Cleanup(func() {
		for _, p := range backgroundServes(t) {
			syscall.Kill(p, syscall.SIGTERM)
		}
		gone(t, 20*time.Second, "cleanup", backgroundServes(t)...)
	})
}

const twiddle = "twiddle the bits of a file"

// TestAutoServe: the first query with no serve answers by itself and
// starts one in the background (logging to the cache root's serve.log,
// telling health it is a background one with an idle deadline); the
// next query is answered through it (it works with no Chroma binary to
// start); status and doctor name it; a SIGKILLed one is replaced by the
// next query; `serve --stop` stops it; under CI=true none starts unless
// asked for.
func TestAutoServe(t *testing.T) {
	smallIndex(t)
	killServes(t)
	exe, _ := os.Executable()
	// the default: no setting, not in CI (.ci/run sets CI=true)
	on := []string{"-CMDAI_AUTO_SERVE", "-CI"}
	query := []string{"index", "query", twiddle, "--distro", "debian-12", "-k", "1"}

	code, out, errOut := cliChild(t, exe, on, query...)
	if code != 0 || !strings.HasPrefix(out, "1. frob ") {
		t.Fatalf("first query: exit %d %q %s", code, out, errOut)
	}
	h := waitServe(t, 60*time.Second)
	if !h.Background || h.IdleUntil.Before(time.Now().Add(4*time.Minute)) || h.IdleUntil.After(time.Now().Add(6*time.Minute)) {
		t.Errorf("health of the background serve: %+v; want background, idle until ~5 min from now", h)
	}
	if got := backgroundServes(t); len(got) != 1 || got[0] != h.PID {
		t.Errorf("background serves %v, health says pid %d", got, h.PID)
	}
	logFile, _ := config.ServeLogFile(os.Getenv)
	if b, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(b), "cmdai serve: ") || !strings.Contains(string(b), strconv.Itoa(h.PID)) {
		t.Errorf("serve's log %s: %q %v", logFile, b, err)
	}

	// through serve: this one could not start a Chroma of its own
	code, out, errOut = cliChild(t, exe, append(on, "CMDAI_CHROMA_BIN=/nonexistent/chroma"), query...)
	if code != 0 || !strings.HasPrefix(out, "1. frob ") {
		t.Errorf("second query, through the background serve: exit %d %q %s", code, out, errOut)
	}
	code, out, _ = cliChild(t, exe, on, "index", "status", "--distro", "debian-12")
	if code != 0 || !strings.Contains(out, "serve:   pid "+strconv.Itoa(h.PID)) || !strings.Contains(out, "started in the background") || !strings.Contains(out, "cmdai serve --stop") || !strings.Contains(out, "this cmdai's build") {
		t.Errorf("status names the serve: exit %d\n%s", code, out)
	}

	if _, out, _ = cliChild(t, exe, on, "doctor", "--distro", "debian-12"); !strings.Contains(out, "pid "+strconv.Itoa(h.PID)) {
		t.Errorf("doctor does not name the serve:\n%s", out)
	}

	// SIGKILL: the next query answers by itself past the stale socket,
	// and starts a new one
	syscall.Kill(h.PID, syscall.SIGKILL)
	gone(t, 10*time.Second, "SIGKILL", h.PID)
	code, out, errOut = cliChild(t, exe, on, query...)
	if code != 0 || !strings.HasPrefix(out, "1. frob ") {
		t.Errorf("query after SIGKILL: exit %d %q %s", code, out, errOut)
	}
	h2 := waitServe(t, 60*time.Second)
	if h2.PID == h.PID || !h2.Background {
		t.Errorf("after SIGKILL: serve %+v", h2)
	}

	code, out, errOut = cliChild(t, exe, on, "serve", "--stop")
	if code != 0 || out != "stopped cmdai serve (pid "+strconv.Itoa(h2.PID)+")\n" {
		t.Errorf("serve --stop: exit %d %q %s", code, out, errOut)
	}
	gone(t, 5*time.Second, "serve --stop", h2.PID)
	if code, out, _ = cliChild(t, exe, on, "serve", "--stop"); code != 0 || !strings.HasPrefix(out, "no cmdai serve runs for this data home") {
		t.Errorf("serve --stop with none: exit %d %q", code, out)
	}

	// CI=true: none, unless asked for
	code, out, _ = cliChild(t, exe, append(on, "CI=true"), query...)
	time.Sleep(2 * time.Second)
	if got := backgroundServes(t); code != 0 || len(got) != 0 {
		t.Errorf("CI=true: exit %d, background serves %v", code, got)
	}
	code, out, errOut = cliChild(t, exe, []string{"CI=true", "CMDAI_AUTO_SERVE=true"}, query...)
	if code != 0 || waitServe(t, 60*time.Second).PID == 0 {
		t.Errorf("CI=true CMDAI_AUTO_SERVE=true: exit %d %s", code, errOut)
	}
}

// TestAutoServeRaceIdleUpgrade: two first queries at once start one
// serve (its log on a full disk); it exits by itself after its idle
// time; and one whose binary is replaced exits too.
func TestAutoServeRaceIdleUpgrade(t *testing.T) {
	smallIndex(t)
	killServes(t)
	self, _ := os.Executable()
	// a copy of this binary, to replace under the serve it runs
	exe := filepath.Join(t.TempDir(), "cmdai")
	b, err := os.ReadFile(self)
	if err != nil || os.WriteFile(exe, b, 0o755) != nil {
		t.Fatal(err)
	}
	query := []string{"index", "query", twiddle, "--distro", "debian-12", "-k", "1"}
	// a full disk for its log: serve runs and answers all the same
	logFile, _ := config.ServeLogFile(os.Getenv)
	if err := os.MkdirAll(filepath.Dir(logFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", logFile); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = cliChild(t, exe, []string{"-CMDAI_AUTO_SERVE", "-CI", "CMDAI_AUTO_SERVE_IDLE=4s"}, query...)
		}()
	}
	wg.Wait()
	h := waitServe(t, 60*time.Second)
	time.Sleep(time.Second) // a second serve, had one started, would hold nothing now either
	if got := backgroundServes(t); codes[0] != 0 || codes[1] != 0 || len(got) != 1 {
		t.Errorf("two first queries at once: exits %v, background serves %v (want one)", codes, got)
	}
	// idle: gone within its idle time plus 10 s
	gone(t, 4*time.Second+10*time.Second, "idle exit", h.PID)

	os.Remove(logFile)

	// a replaced binary stops the serve it runs
	if code, _, errOut := cliChild(t, exe, []string{"-CMDAI_AUTO_SERVE", "-CI"}, query...); code != 0 {
		t.Fatalf("query: exit %d %s", code, errOut)
	}
	h = waitServe(t, 60*time.Second)
	if err := os.WriteFile(exe+".new", b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(exe+".new", exe); err != nil {
		t.Fatal(err)
	}
	gone(t, 15*time.Second, "binary replaced", h.PID)
	if log, _ := os.ReadFile(logFile); !strings.Contains(string(log), "binary "+exe+" changed: stopping") {
		t.Errorf("serve's log does not say why it stopped:\n%s", log)
	}
}

// TestParallelFirstCallsAnswerWhole (issue 45, finding 9): ten first
// queries at once (an agent's parallel tool calls) on a home with no
// serve: one holds the index data at a time, one serve starts, and each
// of the others waits for whichever answers first (the holder letting
// go, or the serve) instead of answering keyword-only from disk. Before,
// 9 of 10 answered degraded, exit 0.
func TestParallelFirstCallsAnswerWhole(t *testing.T) {
	smallIndex(t)
	killServes(t)
	exe, _ := os.Executable()
	on := []string{"-CMDAI_AUTO_SERVE", "-CI"}
	query := []string{"index", "query", twiddle, "--distro", "debian-12", "-k", "1", "--json"}
	type result struct {
		code     int
		out, err string
		took     time.Duration
	}
	results := make([]result, 10)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			code, out, errOut := cliChild(t, exe, on, query...)
			results[i] = result{code, out, errOut, time.Since(began)}
		}()
	}
	wg.Wait()
	degraded := 0
	for i, r := range results {
		if r.code != 0 || !strings.Contains(r.out, `"command":"frob"`) {
			t.Errorf("call %d: exit %d after %s %q %s", i, r.code, r.took, r.out, r.err)
		}
		if strings.Contains(r.out, `"degraded":true`) {
			degraded++
			t.Logf("call %d degraded after %s: %s", i, r.took, r.err)
		}
	}
	if degraded != 0 {
		t.Errorf("%d of %d parallel first calls answered degraded", degraded, len(results))
	}
	if got := backgroundServes(t); len(got) > 1 {
		t.Errorf("%d background serves started: %v", len(got), got)
	}
}
