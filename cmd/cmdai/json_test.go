package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// jsonError is the object an error is on stdout under --json.
type jsonError struct {
	Version  int    `json:"schema_version"`
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}

// checkJSONError: stdout is one line, the error object, whose message is
// stderr's and whose exit code is the process's.
func checkJSONError(t *testing.T, what string, code int, out, errOut string) {
	t.Helper()
	var e jsonError
	if err := json.Unmarshal([]byte(out), &e); err != nil || !strings.HasPrefix(out, `{"schema_version":1,"error":`) || strings.Count(out, "\n") != 1 ||
		e.ExitCode != code || "cmdai: "+e.Error+"\n" != errOut {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want the error object on stdout, the message on stderr", what, code, out, errOut)
	}
}

// jsonCommands are the command lines of every command with a --json
// flag, found in the command tree (a new one is covered as it comes).
func jsonCommands() [][]string {
	var out [][]string
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, path...), c.Name)
			for _, f := range c.Flags {
				if f.Names()[0] == "json" {
					out = append(out, p)
				}
			}
			walk(p, c.Subcommands)
		}
	}
	io, _, _ := testIO()
	walk(nil, newApp(cmdutil.NewFactory(io, os.Getenv, "")).Commands)
	return out
}

// TestJSONErrors: under --json (or CMDAI_JSON), every command that has
// the flag prints its error as a JSON object on stdout, usage errors
// included, and the human line on stderr; a command without --json
// prints none.
func TestJSONErrors(t *testing.T) {
	t.Setenv("CMDAI_HOME", t.TempDir())
	t.Setenv("CMDAI_JSON", "")
	cmds := jsonCommands()
	if len(cmds) < 10 {
		t.Fatalf("found %d commands with --json: %q", len(cmds), cmds)
	}
	for _, path := range cmds {
		args := append(append([]string{}, path...), "--json", "--no-such-flag")
		code, out, errOut := runCLI(t, args...)
		if code != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		checkJSONError(t, strings.Join(args, " "), code, out, errOut)
	}
	code, out, errOut := runCLI(t, "index", "query", "--json")
	checkJSONError(t, "query --json without a request", code, out, errOut)
	code, out, errOut = runCLI(t, "index", "query", "x", "--json=false", "-k", "0")
	if code != cmdutil.ExitUsage || out != "" {
		t.Errorf("--json=false: exit %d, stdout %q; want 2 and nothing", code, out)
	}
	t.Setenv("CMDAI_JSON", "1")
	code, out, errOut = runCLI(t, "index", "query", "x", "-k", "0")
	checkJSONError(t, "CMDAI_JSON=1 query -k 0", code, out, errOut)
	// clear has no --json: its errors stay text
	if code, out, _ := runCLI(t, "index", "clear", "extra"); code != cmdutil.ExitUsage || out != "" {
		t.Errorf("clear extra under CMDAI_JSON: exit %d, stdout %q; want 2 and nothing", code, out)
	}
}

// TestJSONOutputsCarrySchemaVersion: each JSON output, each line of the
// JSON Lines ones, starts with "schema_version": 1; aliases is a list in
// query as in scan.
func TestJSONOutputsCarrySchemaVersion(t *testing.T) {
	bin, man, _ := smallIndex(t)
	t.Setenv("PATH", bin)
	t.Setenv("MANPATH", man)
	for _, args := range [][]string{
		{"index", "query", "twiddle the bits of a file", "--distro", "debian-12", "--json"},
		{"index", "status", "--distro", "debian-12", "--json"},
		{"index", "scan", "--distro", "debian-12", "--json", "--stats"},
		{"model", "status", "--json"},
		{"explain", "frob --bits | helpy", "--distro", "debian-12", "--json"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d %s", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if args[1] == "status" && args[0] == "model" {
			lines = []string{strings.Join(lines, "")} // indented
		}
		for _, l := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil || v["schema_version"] != 1.0 ||
				!strings.HasPrefix(strings.ReplaceAll(l, " ", ""), `{"schema_version":1`) {
				t.Errorf("%q: a line without schema_version 1 first: %.200s (%v)", args, l, err)
			}
			if args[1] == "query" {
				hits, _ := v["commands"].([]any)
				if len(hits) == 0 {
					t.Fatalf("query found nothing: %s", l)
				}
				if a, ok := hits[0].(map[string]any)["aliases"].([]any); !ok || len(a) != 1 || a[0] != "unfrob" {
					t.Errorf("query's frob aliases: %v, want [\"unfrob\"]", hits[0].(map[string]any)["aliases"])
				}
			}
			if args[1] == "scan" && v["command"] == "frob" {
				if a, ok := v["aliases"].([]any); !ok || len(a) != 1 || a[0] != "unfrob" {
					t.Errorf("scan's frob aliases: %v, want [\"unfrob\"]", v["aliases"])
				}
			}
		}
	}
}
