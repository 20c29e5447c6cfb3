package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/mcpcmd"
)

// mcpClientPython is the venv python of scripts/install/install-mcp-client.sh
// (PyPI mcp 2.3.0); the test fails without it.
func mcpClientPython(t *testing.T) string {
	t.Helper()
	py := filepath.Join(os.Getenv("CMDAI_TOOLS"), "mcp-client", "venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("the MCP client is missing: %v (run `make mcp-client`; `make test` does)", err)
	}
	return py
}

// TestMCPWithPythonClient runs `cmdai mcp` (this test binary, as the CLI)
// under PyPI's mcp client with scripts/ci/mcp-client-check.py, over the
// small real index of the ship tests with git-commit(1) (real Chroma,
// real model): tools listed with schemas, git commit's docs asked as
// "git commit" and "git-commit", find for "find files modified today" (top 3: the
// small index makes first place unreliable; the script reports its
// rank), grep's --count, explain_command on the line (ok, the
// options' texts, the structured result) and on tar --zstdx (NOT OK),
// index_status, and an unknown tool, a wrong
// argument type and an empty query each an MCP error with the server
// answering after. The figures it prints (answer sizes, warm call times)
// are logged, not asserted: they are BENCHMARKS.md's.
//
// It runs twice: with the index held by `cmdai mcp` itself, then with a
// `cmdai serve` running, which must answer (index_status says so) with
// the same text, byte for byte, for the same calls.
func TestMCPWithPythonClient(t *testing.T) {
	realEnv(t)
	py := mcpClientPython(t)
	// git-commit(1): command_docs takes "git commit" (issue 30, finding 10)
	initSmall(t, "--command", "git-commit")
	dir := t.TempDir()
	local := mcpCheck(t, py, "--answers", filepath.Join(dir, "local.json"), "--subcommand", "git commit")
	t.Logf("figures, index held by cmdai mcp: %s", local)
	startServeOf(t, "")
	viaServe := mcpCheck(t, py, "--answers", filepath.Join(dir, "serve.json"), "--expect-holder", "cmdai serve", "--subcommand", "git commit")
	t.Logf("figures, through cmdai serve: %s", viaServe)
	var a, b map[string]string
	for _, x := range []struct {
		file string
		into *map[string]string
	}{{"local.json", &a}, {"serve.json", &b}} {
		raw, err := os.ReadFile(filepath.Join(dir, x.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, x.into); err != nil {
			t.Fatalf("%s: %v", x.file, err)
		}
	}
	if len(a) != 7 {
		t.Fatalf("answers %v: want 7", a)
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s through serve:\n%s\nheld by mcp:\n%s", k, b[k], v)
		}
	}
}

// mcpCheck runs scripts/ci/mcp-client-check.py against `cmdai mcp` (this
// test binary as the CLI) with args, checks its figures and returns them.
func mcpCheck(t *testing.T, py string, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args = append([]string{repoFile("scripts/ci/mcp-client-check.py"), "--calls", "5"}, args...)
	cmd := exec.CommandContext(ctx, py, append(args, "--", exe)...)
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI=mcp")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-client-check.py %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	var figures struct {
		FindRank            int `json:"find_rank"`
		SearchCommandsBytes int `json:"search_commands_bytes"`
		CommandDocsBytes    int `json:"command_docs_bytes"`
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &figures); err != nil {
		t.Fatalf("the check's figures: %v\n%s", err, stdout.String())
	}
	if figures.FindRank < 1 || figures.FindRank > 3 || figures.SearchCommandsBytes == 0 || figures.CommandDocsBytes == 0 {
		t.Errorf("figures %+v: want find in the top 3 and answers of some bytes", figures)
	}
	t.Logf("errors the client saw:\n%s", stderr.String())
	return lines[len(lines)-1]
}

// TestMCPWithoutIndex: with no index, each tool answers with an error
// saying what to run, and the session goes on (the client still lists
// the tools).
func TestMCPWithoutIndex(t *testing.T) {
	realEnv(t)
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
        for name, args in [("index_status", {}), ("search_commands", {"query": "list files"}), ("command_docs", {"command": "ls"}), ("explain_command", {"line": "ls -l"})]:
            r = await c.call_tool(name, args)
            print(name, r.is_error, "".join(x.text for x in r.content).replace("\n", " "))
        print("tools", len((await c.list_tools()).tools))
asyncio.run(main())
`
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", script, exe)
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI=mcp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	for _, tool := range []string{"index_status", "search_commands", "command_docs", "explain_command"} {
		if !strings.Contains(string(out), tool+" True ") {
			t.Errorf("%s did not answer with an error:\n%s", tool, out)
		}
	}
	if strings.Count(string(out), "cmdai index init") < 4 || !strings.Contains(string(out), "tools 4") {
		t.Errorf("want each error to say `cmdai index init`, and the session to go on:\n%s", out)
	}
}

// TestMCPChromaDiesMidSession: the private Chroma server killed (SIGKILL)
// between two calls gives the next call an error, not a crash; the call
// after it starts a new server and answers as before; the session's end
// stops that server.
func TestMCPChromaDiesMidSession(t *testing.T) {
	realEnv(t)
	data := t.TempDir()
	initSmall(t, "--chroma-data", data)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	io, _, errOut := testIO()
	opts := &mcpcmd.Options{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Transport: st,
		Chroma: cmdutil.ChromaOptions{DataDir: data}, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	done := make(chan error, 1)
	go func() { done <- mcpcmd.Run(ctx, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	search := func() (bool, string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_commands", Arguments: map[string]any{"query": "count lines in a file", "k": 3}})
		if err != nil {
			t.Fatalf("protocol error: %v", err)
		}
		return res.IsError, res.Content[0].(*mcp.TextContent).Text
	}
	isErr, before := search()
	if isErr || !strings.Contains(before, "wc") {
		t.Fatalf("before the kill: %q", before)
	}
	if err := killServerOf(data); err != nil {
		t.Fatal(err)
	}
	isErr, msg := search()
	if !isErr || !strings.Contains(msg, "the next call opens it again") {
		t.Errorf("after the kill: error %v, %q; want an error saying the next call reopens", isErr, msg)
	}
	t.Logf("the call after the kill: %s", msg)
	if isErr, after := search(); isErr || after != before {
		t.Errorf("the call after: error %v\n%s\nwant as before:\n%s", isErr, after, before)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("Run: %v\n%s", err, errOut)
	}
	// The second server is stopped: its lock is free, so a query starts one.
	if code, out, errText := runCLI(t, "index", "query", "count lines", "--chroma-data", data); code != 0 {
		t.Errorf("query after the session: exit %d\n%s\n%s", code, out, errText)
	}
}

// TestMCPUsageErrors: bad flags are usage errors before anything starts.
func TestMCPUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--keep-open", "-1s"}, "--keep-open must be 0"},
		{[]string{"mcp", "--distro", "not a distro!"}, "--distro"},
		{[]string{"mcp", "--model-variant", "int4"}, "--model-variant"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d saying %q", c.args, code, errOut, cmdutil.ExitUsage, c.want)
		}
	}
}
