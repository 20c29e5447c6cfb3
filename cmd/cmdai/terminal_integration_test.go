package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/cmdai/cmdai/chroma/datalock"
)

// pagesMachine builds a $PATH directory and a man hierarchy of n made-up
// commands (cmd1, cmd2, ...), each with its own page (frob's, renamed):
// enough work for an init to be caught in the middle.
func pagesMachine(t *testing.T, n int) (bin, man string) {
	t.Helper()
	root := t.TempDir()
	bin, man = filepath.Join(root, "bin"), filepath.Join(root, "man")
	for _, d := range []string{bin, filepath.Join(man, "man1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(repoFile("manparse/testdata/frob.1"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("cmd%d", i)
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		// each page its own text: the embedding cache must not answer
		page := strings.NewReplacer("frob", name, "FROB", strings.ToUpper(name), "bits", fmt.Sprintf("bits %d", i)).Replace(string(src))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(page))
		zw.Close()
		if err := os.WriteFile(filepath.Join(man, "man1", name+".1.gz"), gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bin, man
}

// childCLI is the CLI (main itself, see TestMain) in a child process over
// the made-up machine bin, man and the private server's data in data.
func childCLI(bin, man, data string, args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI="+strings.Join(args, "\n"), "PATH="+bin, "MANPATH="+man, "CMDAI_CHROMA_DATA="+data)
	return cmd
}

// TestInitInterruptedExits130: SIGINT in the middle of an init stops it
// gracefully and exits 130 (SIGTERM: 143): the private Chroma server is
// gone and the data directory's lock is free.
func TestInitInterruptedExits130(t *testing.T) {
	realEnv(t)
	bin, man := pagesMachine(t, 600)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		data := t.TempDir()
		cmd := childCLI(bin, man, data, "index", "init", "--batch-mode", "--no-cache", "--distro", "debian-12", "--embed-workers", "1")
		errOut := &syncBuffer{}
		cmd.Stderr, cmd.Stdout = errOut, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		// the first progress line: 100 pages through, the model loaded,
		// the server up, the embedders busy
		if !waitFor(120*time.Second, func() bool { return strings.Contains(errOut.String(), `"event":"progress"`) }) {
			t.Fatalf("no progress from init: %s", errOut)
		}
		server := serverPID(t, data)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
			t.Errorf("init after %v: %v, want exit %d\n%s", sig, err, 128+int(sig), errOut)
		}
		if !strings.Contains(errOut.String(), "interrupted") {
			t.Errorf("init after %v says %q, want it interrupted", sig, errOut)
		}
		if strings.Contains(errOut.String(), `"event":"progress","pages":600,`) {
			t.Errorf("init finished before %v came: the test proves nothing\n%s", sig, errOut)
		}
		if alive(server) {
			t.Errorf("the private Chroma server (pid %d) outlived init after %v", server, sig)
		}
		f, err := datalock.Take(context.Background(), data, 0, nil)
		if err != nil {
			t.Errorf("the data directory is still locked after %v: %v", sig, err)
		}
		datalock.Release(f, data)
	}
}

// serverPID is the private server's pid from its data directory's record.
func serverPID(t *testing.T, data string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(data, "cmdai.pid"))
	f := strings.Fields(string(raw))
	if err != nil || len(f) < 3 {
		t.Fatalf("no private server recorded in %s: %v %q", data, err, raw)
	}
	pid, _ := strconv.Atoi(f[1])
	return pid
}

// alive says whether pid runs (a zombie has exited).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

var embeddedN = regexp.MustCompile(`\((\d+) embedded,`)

var ansiSeq = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// TestInitProgressFitsTerminal runs init under a pseudo-terminal of 80,
// then 40 columns: no line it draws, split at \r and \n with escape
// sequences removed, is wider than the terminal less a column, and the
// summary follows (on stdout).
func TestInitProgressFitsTerminal(t *testing.T) {
	realEnv(t)
	bin, man := pagesMachine(t, 60)
	for _, cols := range []int{80, 40} {
		cmd := childCLI(bin, man, t.TempDir(), "index", "init", "--distro", "debian-12", "--embed-workers", "1", "--no-cache")
		// stderr, where the bar is drawn, on the terminal; the summary,
		// plain text that may wrap as any text, on stdout
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: uint16(cols)}); err != nil {
			t.Fatal(err)
		}
		var out, summary bytes.Buffer
		cmd.Stderr, cmd.Stdout = tty, &summary
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close() // the child holds it
		copied := make(chan struct{})
		go func() { io.Copy(&out, ptmx); close(copied) }() // EIO once the child is gone
		err = cmd.Wait()
		<-copied
		ptmx.Close()
		if err != nil {
			t.Fatalf("init at %d columns: %v\n%q", cols, err, out.String())
		}
		text := ansiSeq.ReplaceAllString(out.String(), "")
		bars, lastBar := 0, ""
		for _, l := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
			if n := utf8.RuneCountInString(l); n > cols-1 {
				t.Errorf("at %d columns a line of %d: %q", cols, n, l)
			}
			if strings.Contains(l, "%") && strings.Contains(l, "|") {
				bars++
				lastBar = l
			}
		}
		if bars == 0 {
			t.Errorf("at %d columns no progress line was drawn: %q", cols, text)
		}
		if m := embeddedN.FindStringSubmatch(summary.String()); !strings.Contains(summary.String(), "indexed 60 commands") || m == nil || m[1] == "0" {
			t.Errorf("at %d columns no summary of 60 commands, their chunks embedded: %q", cols, summary.String())
		}
		t.Logf("at %d columns, %d progress lines drawn; the last: %q", cols, bars, lastBar)
	}
}
