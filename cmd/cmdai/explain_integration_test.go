package main

// Integration tests of `cmdai explain` over a small real index of this
// machine's commands (the real Chroma server, the real man pages): the
// issue's example line, --json, --check's exit 7, bad lines (exit 2,
// nothing started), the line on stdin, no model needed, the same answer
// through a running serve, Chroma down (the keyword index on disk), and
// an index of another distribution (this PATH not consulted).

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/explaincmd"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
)

// exampleLine is the issue's.
const exampleLine = "tar -xzvf a.tgz -C /tmp | grep -c foo"

// explainIndex builds the small index of the ship tests, with xargs.
func explainIndex(t *testing.T) {
	t.Helper()
	realEnv(t)
	initSmall(t, "--command", "xargs")
}

// runExplainIn runs `cmdai explain` with stdin.
func runExplainIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	io, out, errOut := testIO()
	io.In = strings.NewReader(stdin)
	code = run(context.Background(), append([]string{"cmdai", "explain"}, args...), io)
	return code, out.String(), errOut.String()
}

func explainJSON(t *testing.T, args ...string) (explaincmd.Result, string) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"explain", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("explain --json %q: exit %d\n%s%s", args, code, out, errOut)
	}
	if !strings.HasPrefix(out, `{"schema_version":1,`) {
		t.Errorf("explain --json does not start with the schema version: %.100s", out)
	}
	var res explaincmd.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("explain --json: %v\n%s", err, out)
	}
	return res, out
}

// word finds a command's word (or a flag of a cluster) by its text.
func word(c explain.Command, text string) (judge.Word, bool) {
	for _, w := range c.Words {
		if w.Text == text {
			return w, true
		}
		for _, f := range w.Flags {
			if f.Text == text {
				return f, true
			}
		}
	}
	return judge.Word{}, false
}

var explainMillis = regexp.MustCompile(`"explain_ms":[0-9.e+-]+`)

// TestExplain runs every case over one index (an init costs tens of
// seconds on two cores).
func TestExplain(t *testing.T) {
	explainIndex(t)

	t.Run("example", func(t *testing.T) {
		code, out, errOut := runCLI(t, "explain", exampleLine)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"tar: tar(1), ", "grep: grep(1), ", "--extract", "--gzip", "--verbose", "--file", "--directory", "--count", "ok: "} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
		t.Logf("cmdai explain %q:\n%s", exampleLine, out)

		res, raw := explainJSON(t, exampleLine)
		if !res.OK || res.UnknownCount != 0 || res.NotInstalledCount != 0 || res.Line != exampleLine || res.Degraded || res.Collection == "" {
			t.Errorf("result: %s", raw)
		}
		if len(res.Commands) != 2 || res.Commands[0].Name != "tar" || res.Commands[1].Name != "grep" {
			t.Fatalf("commands: %s", raw)
		}
		tar, grep := res.Commands[0], res.Commands[1]
		if tar.Verdict != judge.Known || tar.Page != "tar(1)" || tar.Summary == "" || grep.Verdict != judge.Known || grep.Summary == "" {
			t.Errorf("tar %+v grep %+v: want both known with their page and summary", tar, grep)
		}
		for _, f := range []struct {
			cmd          explain.Command
			text, option string
		}{
			{tar, "-x", "--extract"}, {tar, "-z", "--gzip"}, {tar, "-v", "--verbose"}, {tar, "-f", "--file"}, {tar, "-C", "--directory"}, {grep, "-c", "--count"},
		} {
			w, ok := word(f.cmd, f.text)
			if !ok || w.Verdict != judge.Known || !strings.HasPrefix(w.Option, f.option) || w.Help == "" {
				t.Errorf("%s %s: %+v (found %v); want known as %s with its text", f.cmd.Name, f.text, w, ok, f.option)
			}
		}
		if w, ok := word(tar, "/tmp"); !ok || w.Verdict != judge.Operand {
			t.Errorf("/tmp: %+v; want an operand (the value of -C)", w)
		}
		if w, ok := word(grep, "foo"); !ok || w.Verdict != judge.Operand {
			t.Errorf("foo: %+v; want an operand", w)
		}
	})

	t.Run("check", func(t *testing.T) {
		if code, out, errOut := runCLI(t, "explain", "--check", exampleLine); code != 0 {
			t.Errorf("--check on a good line: exit %d\n%s%s", code, out, errOut)
		}
		for _, line := range []string{"tar --zstdx f", "no-such-command-xyz -a | grep -c foo"} {
			code, out, errOut := runCLI(t, "explain", "--check", line)
			if code != 7 || !strings.Contains(errOut, "the line does not check") || !strings.Contains(out, "tar") && !strings.Contains(out, "no-such-command-xyz") {
				t.Errorf("--check %q: exit %d; want 7 with the result printed\n%s%s", line, code, out, errOut)
			}
			t.Logf("--check %q: exit %d\n%s%s", line, code, out, errOut)
			// the result is on stdout under --json too, and no error object
			code, out, _ = runCLI(t, "explain", "--check", "--json", line)
			var res explaincmd.Result
			if code != 7 || json.Unmarshal([]byte(out), &res) != nil || res.OK || len(res.Commands) == 0 {
				t.Errorf("--check --json %q: exit %d %s", line, code, out)
			}
		}
		res, raw := explainJSON(t, "tar --zstdx f")
		if w, ok := word(res.Commands[0], "--zstdx"); !ok || w.Verdict != judge.UnknownOption || res.UnknownCount != 1 {
			t.Errorf("tar --zstdx: %s; want --zstdx an unknown option", raw)
		}
		res, raw = explainJSON(t, "no-such-command-xyz -a")
		if res.Commands[0].Verdict != judge.NotInstalled || res.NotInstalledCount != 1 {
			t.Errorf("no-such-command-xyz: %s; want not installed", raw)
		}
	})

	// Each bad line is a usage error saying what is wrong, and starts
	// nothing: no Chroma can be started here, yet the exit is 2, not 4.
	t.Run("bad lines", func(t *testing.T) {
		t.Setenv("CMDAI_CHROMA_BIN", "/nonexistent/chroma")
		for _, tc := range []struct{ name, line, want string }{
			{"unbalanced quote", "tar -xf 'a.tgz", "bad command line"},
			{"blank", "   ", "empty"},
			{"1 MB", strings.Repeat("a", 1<<20), "bad command line"},
			{"binary", "tar -x\x00\x01\xff", "bad command line"},
			{"control bytes", "tar -x\x1b[2J f", "bad command line"},
		} {
			code, out, errOut := runCLI(t, "explain", "--no-serve", tc.line)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("%s: exit %d %q %q; want 2 with %q", tc.name, code, out, errOut, tc.want)
			}
			t.Logf("%s: %s", tc.name, strings.TrimSpace(errOut))
		}
		if code, _, errOut := runCLI(t, "explain"); code != 2 || !strings.Contains(errOut, "give the line to check") {
			t.Errorf("no line: exit %d %s", code, errOut)
		}
		if code, _, errOut := runCLI(t, "explain", "ls", "-l"); code != 2 {
			t.Errorf("two arguments: exit %d %s; want 2", code, errOut)
		}
		if code, _, errOut := runExplainIn(t, "", "-"); code != 2 || !strings.Contains(errOut, "empty") {
			t.Errorf("empty stdin: exit %d %s", code, errOut)
		}
	})

	// Here-documents, aliases and functions the line defines are shell,
	// not mistakes: explained (an alias's body as a line of its own), with
	// a note where the index cannot judge.
	t.Run("shell constructs", func(t *testing.T) {
		for _, tc := range []struct {
			name, line string
			want       []string
		}{
			{"here-doc", "grep -c foo <<EOF\nfoo\nEOF", []string{"grep: grep(1), ", "-c, --count:"}},
			{"alias", "alias ll='ls -l'; ll /tmp", []string{"defines the alias ll", "ls (via alias ll): ls(1)", "ll: UNDOCUMENTED (an alias defined in this line"}},
			{"function", "f() { ls -l \"$@\"; }; f /tmp", []string{"ls: ls(1)", "f: UNDOCUMENTED (a shell function defined in this line"}},
		} {
			code, out, errOut := runCLI(t, "explain", "--check", tc.line)
			if code != 0 {
				t.Errorf("%s: exit %d\n%s%s", tc.name, code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s: no %q in\n%s", tc.name, w, out)
				}
			}
		}
	})

	t.Run("stdin", func(t *testing.T) {
		line := `find . -name '*.go' -print0 | xargs -0 grep -c "a \"b\" c"`
		code, out, errOut := runExplainIn(t, line+"\n", "-", "--json")
		var res explaincmd.Result
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("exit %d %s %s", code, out, errOut)
		}
		if res.Line != line || len(res.Commands) < 2 || !res.OK {
			t.Errorf("from stdin: %s; want the line as given, find and grep (via xargs) known", out)
		}
	})

	t.Run("no model", func(t *testing.T) {
		t.Setenv("CMDAI_MODEL_DIR", "/nonexistent/model")
		res, raw := explainJSON(t, "--check", exampleLine)
		if !res.OK || len(res.Commands) != 2 {
			t.Errorf("without a model: %s", raw)
		}
	})

	// cmdai mcp's explain_command opens the collection alone: a session
	// without a model checks lines; a search then says the model is
	// missing, and explain still answers after it.
	t.Run("mcp no model", func(t *testing.T) {
		py := mcpClientPython(t)
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		script := `
import asyncio, os, sys
from mcp import Client
from mcp.client.stdio import StdioServerParameters
async def main():
    async with Client(StdioServerParameters(command=sys.argv[1], env=dict(os.environ)), read_timeout_seconds=120) as c:
        for name, args in [("explain_command", {"line": sys.argv[2]}), ("search_commands", {"query": "list files"}), ("explain_command", {"line": "tar --zstdx f"})]:
            r = await c.call_tool(name, args)
            print(name, r.is_error, "".join(x.text for x in r.content).replace("\n", " | "))
asyncio.run(main())
`
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, py, "-c", script, exe, exampleLine)
		cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI=mcp", "CMDAI_MODEL_DIR=/nonexistent/model")
		raw, err := cmd.CombinedOutput()
		out := string(raw)
		if err != nil {
			t.Fatalf("client: %v\n%s", err, out)
		}
		if !strings.Contains(out, "explain_command False ok: ") || !strings.Contains(out, "search_commands True ") || !strings.Contains(out, "explain_command False NOT OK: 1 unknown option") {
			t.Errorf("want explain_command to answer without a model, search_commands to fail:\n%s", out)
		}
	})

	t.Run("Chroma down", func(t *testing.T) {
		// a keyword query saves the keyword index on disk
		if code, _, errOut := runCLI(t, "index", "query", "--mode", "keyword", "count lines"); code != 0 {
			t.Fatalf("keyword query: exit %d %s", code, errOut)
		}
		want, _ := explainJSON(t, exampleLine)
		dead := deadServerURL(t)
		code, out, errOut := runCLI(t, "explain", "--json", "--chroma-url", dead, exampleLine)
		var res explaincmd.Result
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !res.Degraded || !strings.Contains(res.DegradedReason, "keyword index") || !strings.Contains(errOut, "warning: ") {
			t.Fatalf("Chroma down: exit %d %s %s", code, out, errOut)
		}
		for i := range want.Commands {
			a, _ := json.Marshal(want.Commands[i])
			b, _ := json.Marshal(res.Commands[i])
			if string(a) != string(b) {
				t.Errorf("from the keyword index:\n%s\nfrom Chroma:\n%s", b, a)
			}
		}
		if code, _, errOut := runCLI(t, "explain", "--strict", "--chroma-url", dead, exampleLine); code != 4 {
			t.Errorf("--strict, Chroma down: exit %d %s; want 4", code, errOut)
		}
	})

	// A command on this PATH the index lacks is undocumented by this
	// machine's index; by an index of another distribution it is not
	// installed (that index says nothing of this PATH).
	t.Run("another distribution", func(t *testing.T) {
		if code, _, errOut := runCLI(t, "index", "init", "--batch-mode", "--distro", "ubuntu-24.04", "--command", "tar"); code != 0 {
			t.Fatalf("init ubuntu-24.04: exit %d %s", code, errOut)
		}
		here, raw := explainJSON(t, "sed -n 1p f")
		if here.Commands[0].Verdict != judge.Undocumented || here.NotInstalledCount != 0 {
			t.Errorf("sed by this machine's index: %s; want undocumented (it is on PATH)", raw)
		}
		there, raw := explainJSON(t, "--distro", "ubuntu-24.04", "sed -n 1p f")
		if there.Commands[0].Verdict != judge.NotInstalled {
			t.Errorf("sed by ubuntu-24.04's index: %s; want not installed", raw)
		}
	})

	// Through a running serve: the same answer (but the time), and the
	// same exit codes.
	t.Run("serve", func(t *testing.T) {
		_, oneShot := explainJSON(t, "--no-serve", exampleLine)
		_, c := startServeOf(t, "")
		_, viaServe := explainJSON(t, exampleLine)
		if a, b := explainMillis.ReplaceAllString(oneShot, ""), explainMillis.ReplaceAllString(viaServe, ""); a != b {
			t.Errorf("through serve:\n%s\none-shot:\n%s", b, a)
		}
		direct, err := c.Explain(context.Background(), answerlayer.ExplainRequest{Line: exampleLine})
		if err != nil || !direct.OK || len(direct.Commands) != 2 {
			t.Errorf("POST /v1/explain: %+v %v", direct, err)
		}
		if code, _, errOut := runCLI(t, "explain", "--check", "tar --zstdx f"); code != 7 {
			t.Errorf("--check through serve: exit %d %s; want 7", code, errOut)
		}
		if code, _, errOut := runCLI(t, "explain", "tar -xf 'a.tgz"); code != 2 || !strings.Contains(errOut, "bad command line") {
			t.Errorf("a bad line through serve: exit %d %s; want 2", code, errOut)
		}
		for i := 0; i < 3; i++ {
			res, err := c.Explain(context.Background(), answerlayer.ExplainRequest{Line: exampleLine})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("warm explain through serve: %.2f ms", res.Millis)
		}

		// serve keeps each command's records while its index is the same:
		// an init through it (under its lease) makes it read them anew.
		const line = "ls -l | sed -n 1p"
		before, err := c.Explain(context.Background(), answerlayer.ExplainRequest{Line: line})
		if err != nil || before.Commands[0].Verdict != judge.Known || before.Commands[1].Verdict != judge.Undocumented {
			t.Fatalf("before the init: %+v %v; want ls known, sed undocumented", before, err)
		}
		if code, _, errOut := runCLI(t, "index", "init", "--batch-mode", "--force", "--command", "sed", "--command", "grep"); code != 0 {
			t.Fatalf("init through serve: exit %d %s", code, errOut)
		}
		after, err := c.Explain(context.Background(), answerlayer.ExplainRequest{Line: line})
		if err != nil || after.Commands[0].Verdict != judge.Undocumented || after.Commands[1].Verdict != judge.Known {
			t.Errorf("after an init of sed and grep alone: %+v %v; want ls undocumented, sed known (serve's cache dropped)", after, err)
		}
	})
}

// TestExplainWithoutIndex: with no index at all, a bad line is
// still exit 2 (nothing was opened), and a good one exit 3 with the
// command that builds the index.
func TestExplainWithoutIndex(t *testing.T) {
	realEnv(t)
	if code, _, errOut := runCLI(t, "explain", "tar -xf 'a"); code != 2 {
		t.Errorf("bad line, no index: exit %d %s; want 2", code, errOut)
	}
	// issue 30, finding 2: 10,000 nested $( made 151 MB of JSON; over
	// the nesting limit, a line is refused before anything is opened
	for _, deep := range []string{
		strings.Repeat("$(", 10000) + "ls" + strings.Repeat(")", 10000),
		strings.Repeat("ls <(", 6500) + "ls" + strings.Repeat(")", 6500),
	} {
		code, out, errOut := runCLI(t, "explain", "--json", deep)
		if code != 2 || len(out) > 1000 || !strings.Contains(errOut, "nest more than 64 deep") || !strings.Contains(errOut, "split the line") {
			t.Errorf("%.20s... nested 10,000 deep: exit %d, %d B out, %.300s; want exit 2 saying the limit", deep, code, len(out), errOut)
		}
	}
	if code, _, errOut := runCLI(t, "explain", "tar -xf a.tar"); code != 3 || !strings.Contains(errOut, "cmdai index init") {
		t.Errorf("no index: exit %d %s; want 3 saying what to run", code, errOut)
	}
}
