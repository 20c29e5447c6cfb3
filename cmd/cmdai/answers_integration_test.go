package main

// Integration tests of the answers a person reads, on a small real
// index of this machine's commands (the real Chroma server, model and
// man pages): `index query`'s text (the command, options as spelled
// with their first sentence, no score), --scores and -v, colour on a
// terminal (a pty) and not through a pipe, NO_COLOR and --color,
// `cmdai search` = `index query`, and `cmdai show`'s card, its --json
// the object GET /v1/docs answers, one-shot and through serve.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/manparse"
)

// tarRequest is answered by tar first in the small index.
const tarRequest = "extract files from a tar archive"

var (
	scoreText = regexp.MustCompile(`\(-?\d+\.\d{3}\)|\b\d\.\d{3}\b`)
	sgr       = regexp.MustCompile(`\x1b\[[0-9;]*m`)
)

func TestReadableAnswers(t *testing.T) {
	realEnv(t)
	initSmall(t)

	t.Run("query text", func(t *testing.T) {
		code, out, errOut := runCLI(t, "index", "query", tarRequest, "-k", "3")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		t.Logf("cmdai index query %q -k 3:\n%s", tarRequest, out)
		_, js, _ := runCLI(t, "index", "query", tarRequest, "-k", "3", "--json")
		var res querycmd.QueryResult
		if err := json.Unmarshal([]byte(js), &res); err != nil || len(res.Commands) == 0 || res.Commands[0].Command != "tar" {
			t.Fatalf("--json: %v\n%s", err, js)
		}
		tar := res.Commands[0]
		if !strings.HasPrefix(out, "1. tar - "+tar.Description+"\n") {
			t.Errorf("the text does not start with tar and its description:\n%s", out)
		}
		// the text shows the first of the options --json shows (the
		// lean JSON holds more of them in its 4 KB than a screen does),
		// in the same order
		spelled, inText, leftOut := 0, 0, ""
		for _, m := range tar.Matches {
			if m.Kind != index.KindOption {
				continue
			}
			// the page's spelling (the record's heading) and the start of
			// its first sentence, beside it (below it when the spelling
			// is too long for the column)
			heading, body := manparse.SplitChunk(string(m.Kind), m.Text)
			start := strings.Join(strings.Fields(body), " ")
			start = start[:min(len(start), 20)]
			switch shown := regexp.MustCompile(`(?m)^   ` + regexp.QuoteMeta(heading) + `( +|\n {7})` + regexp.QuoteMeta(start)).MatchString(out); {
			case shown && leftOut != "":
				t.Errorf("the text shows %q after leaving out %q, which --json shows first:\n%s", heading, leftOut, out)
			case shown:
				inText++
			case leftOut == "":
				leftOut = heading
			}
			if heading != m.Option {
				spelled++
			}
		}
		if inText < 2 {
			t.Errorf("the text shows %d of tar's options --json shows (%s), want its first ones:\n%s", inText, js, out)
		}
		if spelled == 0 {
			t.Errorf("no option of tar matched with a spelling beyond its main flag: %s", js)
		}
		if scoreText.MatchString(out) || strings.Contains(out, "DESCRIPTION") || strings.Contains(out, "\x1b") {
			t.Errorf("a score, a section name or colour in the default text through a pipe:\n%s", out)
		}

		_, scored, _ := runCLI(t, "index", "query", tarRequest, "-k", "3", "--scores")
		if !regexp.MustCompile(`^1\. tar  \(\d+\.\d{3}\) - `).MatchString(scored) || !regexp.MustCompile(`(?m)^   \d\.\d{3}  [A-Z]+`).MatchString(scored) {
			t.Errorf("--scores: no scores or sections:\n%s", scored)
		}
		for _, flag := range []string{"-v", "--verbose"} {
			if _, v, _ := runCLI(t, "index", "query", tarRequest, "-k", "3", flag); v != scored {
				t.Errorf("%s:\n%s\n--scores:\n%s", flag, v, scored)
			}
		}

		// one implementation, two names; the request in words, unquoted
		_, search, _ := runCLI(t, append([]string{"search"}, append(strings.Fields(tarRequest), "-k", "3")...)...)
		if search != out {
			t.Errorf("cmdai search:\n%s\ncmdai index query:\n%s", search, out)
		}
		if _, s, _ := runCLI(t, "search", tarRequest, "-k", "3", "--json"); stripMillis(s) != stripMillis(js) {
			t.Errorf("cmdai search --json:\n%s\nindex query --json:\n%s", s, js)
		}
	})

	t.Run("colour", func(t *testing.T) {
		exe, _ := os.Executable()
		const bold = "\x1b[1mtar\x1b[0m"
		args := []string{"search", tarRequest, "-k", "2"}
		for _, c := range []struct {
			name   string
			env    []string
			extra  []string
			colour bool
		}{
			{"pipe", []string{"-NO_COLOR"}, nil, false},
			{"pipe, --color=always", []string{"-NO_COLOR"}, []string{"--color=always"}, true},
			{"pipe, NO_COLOR, --color always", []string{"NO_COLOR=1"}, []string{"--color", "always"}, true},
		} {
			code, out, errOut := cliChild(t, exe, c.env, append(args, c.extra...)...)
			if code != 0 || strings.Contains(out, bold) != c.colour || (!c.colour && strings.Contains(out, "\x1b")) {
				t.Errorf("%s: exit %d, colour %v, want %v\n%q\n%s", c.name, code, strings.Contains(out, "\x1b"), c.colour, out, errOut)
			}
		}
		for _, c := range []struct {
			name   string
			env    []string
			colour bool
		}{
			{"terminal", []string{"TERM=xterm"}, true},
			{"terminal, NO_COLOR", []string{"TERM=xterm", "NO_COLOR=1"}, false},
			{"terminal, TERM=dumb", []string{"TERM=dumb"}, false},
		} {
			out := onTerminal(t, exe, 60, c.env, args...)
			if strings.Contains(out, bold) != c.colour || (!c.colour && strings.Contains(out, "\x1b")) {
				t.Errorf("%s: colour %v, want %v\n%q", c.name, strings.Contains(out, "\x1b"), c.colour, out)
			}
			for _, l := range strings.Split(sgr.ReplaceAllString(out, ""), "\n") {
				if n := len([]rune(strings.TrimRight(l, "\r"))); n > 60 {
					t.Errorf("%s: a line of %d columns on a terminal of 60: %q", c.name, n, l)
				}
			}
		}
	})

	t.Run("show", func(t *testing.T) {
		code, out, errOut := runCLI(t, "show", "tar")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		t.Logf("cmdai show tar:\n%s", out)
		for _, want := range []string{"\nSYNOPSIS\n", "\n  tar -c [-f ARCHIVE] [OPTIONS] [FILE...]\n", "\nOPTIONS\n", "\n  -c, --create ", "Create a new archive.", "\n  -f, --file ARCHIVE ", "more: cmdai show tar --all)"} {
			if !strings.HasPrefix(out, "tar(1) ") || !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
		code, out, _ = runCLI(t, "show", "find")
		if code != 0 || !strings.Contains(out, "\nEXAMPLES\n") || !regexp.MustCompile(`(?m)^  \$ find `).MatchString(out) {
			t.Errorf("show find: exit %d; want its examples' command lines\n%s", code, out)
		}
		if code, all, _ := runCLI(t, "show", "tar", "--all"); code != 0 || strings.Count(all, "\n  -") <= strings.Count(out, "\n  -") || strings.Contains(all, "more: ") {
			t.Errorf("show tar --all: exit %d, every option\n%s", code, all)
		}
		code, out, errOut = runCLI(t, "show", "frobnicate-nothing")
		if code != 2 || out != "" || !strings.Contains(errOut, "frobnicate-nothing is not in the index") || !strings.Contains(errOut, "cmdai search") {
			t.Errorf("an unknown command: exit %d, %q %q; want a usage error naming cmdai search", code, out, errOut)
		}
		code, _, errOut = runCLI(t, "show", "tar", "--distro", "ubuntu-24.04")
		if code != 3 || !strings.Contains(errOut, "no index") {
			t.Errorf("no index: exit %d %q; want 3", code, errOut)
		}
	})

	// Through a running serve: the same texts, and show --json is the
	// object GET /v1/docs answers.
	t.Run("serve", func(t *testing.T) {
		_, oneShot, _ := runCLI(t, "index", "query", tarRequest, "-k", "3", "--no-serve")
		_, oneShotCard, _ := runCLI(t, "show", "tar", "--no-serve")
		_, oneShotDoc, _ := runCLI(t, "show", "tar", "--json", "--no-serve")
		_, c := startServeOf(t, "")
		if _, viaServe, _ := runCLI(t, "search", tarRequest, "-k", "3"); viaServe != oneShot {
			t.Errorf("through serve:\n%s\none-shot:\n%s", viaServe, oneShot)
		}
		if _, card, _ := runCLI(t, "show", "tar"); card != oneShotCard {
			t.Errorf("card through serve:\n%s\none-shot:\n%s", card, oneShotCard)
		}
		doc, err := c.Docs(context.Background(), "tar", "", false)
		if err != nil {
			t.Fatal(err)
		}
		var direct bytes.Buffer
		_ = jsonout.Encode(&direct, doc)
		_, viaServe, _ := runCLI(t, "show", "tar", "--json")
		if viaServe != direct.String() || oneShotDoc != direct.String() {
			t.Errorf("show --json through serve:\n%.300s\none-shot:\n%.300s\nGET /v1/docs:\n%.300s", viaServe, oneShotDoc, direct.String())
		}
		code, out, errOut := runCLI(t, "show", "frobnicate-nothing")
		if code != 2 || out != "" || !strings.Contains(errOut, "frobnicate-nothing is not in the index") || !strings.Contains(errOut, "cmdai search") {
			t.Errorf("an unknown command through serve: exit %d, %q %q; want a usage error naming cmdai search", code, out, errOut)
		}
	})
}

func stripMillis(s string) string { return queryMillis.ReplaceAllString(s, "") }

// onTerminal runs the CLI (main itself, see TestMain) in a child process
// whose stdout and stderr are a terminal of cols columns, with env added
// to this one's, and returns what it printed.
func onTerminal(t *testing.T, exe string, cols uint16, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "NO_COLOR" && k != "TERM" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, env...), "CMDAI_TEST_CLI="+strings.Join(args, "\n"))
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(tty) // EIO once the child is gone
		done <- b
	}()
	var out []byte
	select {
	case out = <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("cmdai %q on a terminal did not end within 3 minutes", args)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("cmdai %q on a terminal: exit %d\n%s", args, cmd.ProcessState.ExitCode(), out)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n")
}
