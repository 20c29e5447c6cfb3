package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// configProbes are configuration files a careless user or a hostile
// setup may name: each must be refused at once, with its name.
func configProbes(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	probes := map[string]string{}
	add := func(name string, make func(path string) error) {
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		probes[name] = p
	}
	add("fifo.yaml", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	add("zero.yml", func(p string) error { return os.Symlink("/dev/zero", p) })
	add("dir.yaml", func(p string) error { return os.Mkdir(p, 0o755) })
	add("deep.yml", func(p string) error {
		return os.WriteFile(p, []byte("a: "+strings.Repeat("[", 3_000_000)+strings.Repeat("]", 3_000_000)+"\n"), 0o644)
	})
	// TOML, read until one format was kept: refused by its name, with the
	// way to convert it, though it parses.
	add("team.toml", func(p string) error { return os.WriteFile(p, []byte("json = true\n"), 0o644) })
	add("deep.yaml", func(p string) error {
		return os.WriteFile(p, []byte("a: "+strings.Repeat("[", 200_000)+strings.Repeat("]", 200_000)+"\n"), 0o644)
	})
	add("binary.yaml", func(p string) error { return os.WriteFile(p, []byte("\x00\xff\xfe{[\x01chroma-url"), 0o644) })
	return probes
}

// runWithConfig runs this test binary as cmdai with CMDAI_CONFIG=config in
// an empty home, under a 4 GiB address-space limit (a file read without
// bound fails there, not on the machine) and a time limit; signal, when
// not nil, is sent after 300 ms.
func runWithConfig(t *testing.T, config string, signal os.Signal, args ...string) (code int, stdout, stderr string, hung bool) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 4194304; exec "$0" -test.run='^$'`, self)
	home := t.TempDir()
	// HOME alone, as a user has it: without CMDAI_HOME, where the data
	// lives is read from the file too (and an older cmdai's home is looked
	// for), which once made `--help` fail with exit 1
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CMDAI_CONFIG=" + config,
		"CMDAI_TEST_CLI=" + strings.Join(args, "\n")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if signal != nil {
		time.Sleep(300 * time.Millisecond)
		_ = cmd.Process.Signal(signal)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		hung = true
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String(), hung
}

// TestConfigProbesAreRefused: a FIFO, a symlink to /dev/zero, a
// directory, a file nested millions deep and binary junk each make a
// command fail at once with a usage error naming the file (no hang, no
// OOM, no stack overflow); `--help` prints help and exits 0 whatever
// the file holds.
func TestConfigProbesAreRefused(t *testing.T) {
	helps := [][]string{{"--help"}, {"help"}, {"index", "--help"}, {"index", "query", "--help"},
		{"index", "export", "--help"}, {"index", "init", "--help"}, {"explain", "--help"}, {"serve", "-h"},
		{"mcp", "--help"}, {"model", "pull", "--help"}, {"doctor", "--help"}, {"index", "help", "query"}, {"help", "explain"}}
	for name, path := range configProbes(t) {
		code, _, stderr, hung := runWithConfig(t, path, nil, "index", "status")
		if hung || code != 2 || !strings.Contains(stderr, path) {
			t.Errorf("CMDAI_CONFIG=%s index status: exit %d (hung %v), want 2 naming the file:\n%.500s", name, code, hung, stderr)
		}
		for _, args := range helps {
			code, stdout, stderr, hung := runWithConfig(t, path, nil, args...)
			if hung || code != 0 || !strings.Contains(stdout, "USAGE") {
				t.Errorf("CMDAI_CONFIG=%s cmdai %s: exit %d (hung %v), want help:\n%.300s", name, strings.Join(args, " "), code, hung, stderr)
			}
		}
	}
}

// TestConfigReadingStopsOnSignals: SIGINT and SIGTERM stop cmdai while
// it deals with a FIFO named as its configuration (it ignored both,
// blocked in open): it has ended when the signal comes, or ends on it
// with 130 or 143.
func TestConfigReadingStopsOnSignals(t *testing.T) {
	path := configProbes(t)["fifo.yaml"]
	for sig, want := range map[os.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		code, _, stderr, hung := runWithConfig(t, path, sig, "index", "status")
		if hung || (code != 2 && code != want) {
			t.Errorf("%v: exit %d (hung %v), want 2 or %d:\n%.300s", sig, code, hung, want, stderr)
		}
	}
}
