package main

// Integration tests of `cmdai mcp` through a running `cmdai serve`, and
// of the keyword-only answers serve and mcp give when Chroma is down,
// with the real Chroma server and model.

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/mcpcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/servecmd"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/testnet"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// toolCall is one MCP tool call and its arguments.
type toolCall struct {
	name string
	args map[string]any
}

// mcpSession runs `cmdai mcp` in this process (index of debian-12) over
// in-memory transports until the returned end, which waits for Run.
func mcpSession(t *testing.T, chroma cmdutil.ChromaOptions) (call func(toolCall) (string, bool), end func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	ct, st := mcp.NewInMemoryTransports()
	io, _, errOut := testIO()
	opts := &mcpcmd.Options{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Transport: st, Distro: "debian-12",
		KeepOpen: mcpcmd.DefaultKeepOpen, Chroma: chroma, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	done := make(chan error, 1)
	go func() { done <- mcpcmd.Run(ctx, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ended := false
	end = func() {
		if ended {
			return
		}
		ended = true
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("mcp Run: %v\n%s", err, errOut)
		}
		cancel()
	}
	t.Cleanup(end)
	call = func(c toolCall) (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: protocol error %v", c.name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	return call, end
}

// mcpCalls are the calls compared between the index held by mcp and by
// serve: each mode of search, docs whole, one option, an unknown command.
var mcpCalls = []toolCall{
	{"search_commands", map[string]any{"query": "twiddle the bits of a file", "k": 3}},
	{"search_commands", map[string]any{"query": "twiddle the bits of files recursively", "mode": "hybrid"}},
	{"search_commands", map[string]any{"query": "frob recursively", "mode": "keyword", "k": 2}},
	{"command_docs", map[string]any{"command": "frob"}},
	{"command_docs", map[string]any{"command": "frob", "option": "--recursive"}},
	{"command_docs", map[string]any{"command": "unfrob", "section": "synopsis"}},
	{"command_docs", map[string]any{"command": "no-such-command"}},
}

// TestMCPThroughServePerCall: the same tool calls give the same text,
// byte for byte, from the index held by `cmdai mcp` and through a running
// serve (index_status names the holder); serve stopping mid-session
// sends the next calls to the index held by mcp again, with the same
// answers.
func TestMCPThroughServePerCall(t *testing.T) {
	smallIndex(t)
	answers := func(call func(toolCall) (string, bool)) []string {
		var out []string
		for _, c := range mcpCalls {
			text, isErr := call(c)
			if isErr != (c.args["command"] == "no-such-command") {
				t.Errorf("%s %v: error %v: %s", c.name, c.args, isErr, text)
			}
			out = append(out, text)
		}
		return out
	}
	holder := func(call func(toolCall) (string, bool)) string {
		text, isErr := call(toolCall{"index_status", nil})
		if isErr {
			t.Fatalf("index_status: %s", text)
		}
		_, h, _ := strings.Cut(text, "held by ")
		return strings.TrimSpace(h)
	}
	call, end := mcpSession(t, cmdutil.ChromaOptions{})
	local := answers(call)
	if h := holder(call); h != "this process (cmdai mcp)" {
		t.Errorf("without serve, held by %q", h)
	}
	end() // stops mcp's Chroma: serve needs its data

	stop, _ := startServe(t)
	call, end = mcpSession(t, cmdutil.ChromaOptions{})
	defer end()
	if h := holder(call); !strings.HasPrefix(h, "cmdai serve on ") {
		t.Errorf("with serve running, held by %q", h)
	}
	for i, got := range answers(call) {
		if got != local[i] {
			t.Errorf("%s %v through serve:\n%s\nheld by mcp:\n%s", mcpCalls[i].name, mcpCalls[i].args, got, local[i])
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("stop serve: %v", err)
	}
	for i, got := range answers(call) {
		if got != local[i] {
			t.Errorf("%s %v after serve stopped:\n%s\nwant:\n%s", mcpCalls[i].name, mcpCalls[i].args, got, local[i])
		}
	}
	if h := holder(call); h != "this process (cmdai mcp)" {
		t.Errorf("after serve stopped, held by %q", h)
	}
}

// TestServeDegradedWhenChromaDies: serve's private Chroma killed, serve
// answers queries keyword-only from the keyword index on disk, saying so
// (a keyword query needs no Chroma: answered whole)
// ("degraded": true and the reason), the same commands as a keyword
// query; a strict query is exit 4; the CLI through serve warns and exits
// 0 (--strict: 4); MCP's search_commands through serve says so on its
// first line, and command_docs answers from the keyword index, degraded;
// serve keeps serving.
func TestServeDegradedWhenChromaDies(t *testing.T) {
	smallIndex(t)
	_, c := startServe(t)
	ctx := context.Background()
	const request = "twiddle the bits of files recursively"
	want, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: "keyword"})
	if err != nil || want.Degraded || len(want.Commands) == 0 {
		t.Fatalf("keyword query with Chroma: %+v %v", want, err)
	}
	h, err := c.Health(ctx)
	if err != nil || h.DataDir == "" {
		t.Fatalf("health: %+v %v", h, err)
	}
	if err := killServerOf(h.DataDir); err != nil {
		t.Fatal(err)
	}
	// keyword needs no Chroma: serve's keyword index answers it whole
	for _, mode := range []string{"semantic", "hybrid", "keyword"} {
		res, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: mode})
		if err != nil {
			t.Fatalf("--mode %s with Chroma dead: %v; want a degraded answer", mode, err)
		}
		if mode == "keyword" {
			if res.Degraded || commands(res) != commands(want) {
				t.Errorf("--mode keyword with Chroma dead: %q degraded %v; want the keyword answer, not degraded", commands(res), res.Degraded)
			}
			continue
		}
		if !res.Degraded || !strings.Contains(res.DegradedReason, "keyword-only") || !strings.Contains(res.DegradedReason, "stopped answering serve") {
			t.Errorf("--mode %s: degraded %v %q", mode, res.Degraded, res.DegradedReason)
		}
		if commands(res) != commands(want) {
			t.Errorf("--mode %s: %q, want the keyword answer %q", mode, commands(res), commands(want))
		}
	}
	var se *serve.Error
	if _, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, Strict: true}); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable {
		t.Errorf("strict: %v; want an error of exit code 4", err)
	}
	res, code, errOut := queryJSON(t, "-k", "3", request)
	if code != 0 || !res.Degraded || commands(res) != commands(want) || !strings.Contains(errOut, "warning:") {
		t.Errorf("CLI through serve: exit %d %+v\n%s", code, res, errOut)
	}
	if _, code, errOut := queryJSON(t, "--strict", request); code != cmdutil.ExitUnreachable {
		t.Errorf("CLI --strict through serve: exit %d %s; want 4", code, errOut)
	}
	call, _ := mcpSession(t, cmdutil.ChromaOptions{})
	text, isErr := call(toolCall{"search_commands", map[string]any{"query": request, "k": 3}})
	if first, rest, _ := strings.Cut(text, "\n"); isErr || !strings.HasPrefix(first, "degraded: ") || !strings.HasPrefix(rest, "1. "+want.Commands[0].Command) {
		t.Errorf("MCP search through serve (error %v):\n%s", isErr, text)
	}
	text, isErr = call(toolCall{"command_docs", map[string]any{"command": "frob", "option": "--recursive"}})
	if first, rest, _ := strings.Cut(text, "\n"); isErr || !strings.HasPrefix(first, "degraded: ") || !strings.Contains(first, "from the keyword index") || !strings.Contains(rest, "--recursive") {
		t.Errorf("docs with Chroma dead (error %v):\n%s", isErr, text)
	}
	if _, err := c.Health(ctx); err != nil {
		t.Errorf("serve after all that: %v", err)
	}
}

// TestServeWithoutChroma: serve whose Chroma cannot be reached at start
// (a closed --chroma-url port) starts anyway: health says degraded, a
// query through it (`index query`, exit 0) is answered keyword-only from
// disk, strict is exit 4, status answers Chroma's error, docs come
// from the keyword index on disk, else from the command's page parsed
// live (strict: Chroma's error), a writer's lease is refused (exit 4);
// with no keyword index on disk either, a query naming an installed
// command is answered from its live page. Once a Chroma holding the index
// answers on that port, serve answers from the index, not degraded,
// without a restart.
func TestServeWithoutChroma(t *testing.T) {
	realEnv(t)
	frobIndex(t)
	bin := onPath(t)
	const request = "twiddle the bits of files recursively"
	want, code, errOut := queryJSON(t, "--mode", "keyword", "-k", "3", request) // saves the keyword index
	if code != 0 || len(want.Commands) == 0 {
		t.Fatalf("keyword query: exit %d %s", code, errOut)
	}
	addr := testnet.ClosedPort(t)
	// retries every second, so that the wait below is short
	stop, c, log := startServeOpts(t, servecmd.ServeOptions{Distro: "debian-12", Chroma: cmdutil.ChromaOptions{URL: "http://" + addr}, RetryEvery: time.Second})
	ctx := context.Background()
	if h, err := c.Health(ctx); err != nil || !h.Degraded || !strings.Contains(h.DegradedReason, addr) || h.DataDir != "" {
		t.Errorf("health: %+v %v; want degraded, the reason naming %s and no data dir", h, err, addr)
	}
	res, code, errOut := queryJSON(t, "--mode", "semantic", "-k", "3", request)
	if code != 0 || !res.Degraded || !strings.Contains(res.DegradedReason, "keyword-only") || commands(res) != commands(want) {
		t.Errorf("query through degraded serve: exit %d %+v\n%s", code, res, errOut)
	}
	var se *serve.Error
	if _, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, Strict: true}); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable {
		t.Errorf("strict: %v; want exit code 4", err)
	}
	if _, err := c.StatusOf(ctx, answerlayer.StatusRequest{Detailed: false}); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable || !strings.Contains(err.Error(), addr) {
		t.Errorf("status: %v; want Chroma's error, exit code 4", err)
	}
	if _, err := c.Docs(ctx, "frob", "", true); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable {
		t.Errorf("strict docs: %v; want Chroma's error, exit code 4", err)
	}
	if doc, err := c.Docs(ctx, "frob", "", false); err != nil || !doc.Degraded || !strings.Contains(doc.DegradedReason, "from the keyword index") || !hasRecord(doc, "--recursive") {
		t.Errorf("docs from the keyword index: %+v %v", doc, err)
	}
	// helpy is installed but not indexed, and has no man page: never run
	// for a client, the answer says how the user indexes its --help
	if _, err := c.Docs(ctx, "helpy", "", false); !errors.As(err, &se) || se.Status != 404 || !strings.Contains(err.Error(), "no man page installed") || !strings.Contains(err.Error(), helpHint) {
		t.Errorf("docs of helpy: %v; want 404, no man page and %q", err, helpHint)
	}
	if _, err := c.Docs(ctx, "no-such-command", "", false); !errors.As(err, &se) || se.Status != 404 {
		t.Errorf("docs of a command neither indexed nor installed: %v; want 404", err)
	}
	if l, err := c.Lease(ctx, false); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable || !strings.Contains(err.Error(), "without Chroma") {
		if l != nil {
			l.Close()
		}
		t.Errorf("lease: %v; want a refusal, exit code 4", err)
	}
	// no keyword index on disk either: Chroma's error, exit 4
	kw, err := config.KeywordDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(kw); err != nil {
		t.Fatal(err)
	}
	if _, code, errOut := queryJSON(t, "--mode", "semantic", request); code != cmdutil.ExitUnreachable || !strings.Contains(errOut, "no answer from disk either") {
		t.Errorf("query without Chroma or a keyword index: exit %d %s; want 4 and why", code, errOut)
	}
	if res, code, errOut := queryJSON(t, "how do I use frob to descend recursively"); code != 0 || !res.Degraded || commands(res) != "frob" || !strings.Contains(res.DegradedReason, "read live from the man page") {
		t.Errorf("query naming frob without Chroma or a keyword index: exit %d %+v %s", code, res, errOut)
	}
	if doc, err := c.Docs(ctx, "frob", "", false); err != nil || !doc.Degraded || !strings.Contains(doc.DegradedReason, "no keyword index on disk; read live from the man page") {
		t.Errorf("docs without a keyword index: %+v %v", doc, err)
	}
	if _, err := c.Query(ctx, answerlayer.QueryRequest{Request: "helpy: say nothing, quietly"}); !errors.As(err, &se) || se.ExitCode != cmdutil.ExitUnreachable || !strings.Contains(err.Error(), "no man page installed for helpy") || !strings.Contains(err.Error(), helpHint) {
		t.Errorf("query naming helpy without Chroma or a keyword index: %v; want exit code 4, no man page and %q", err, helpHint)
	}
	if _, err := c.Docs(ctx, "helpy", "", false); !errors.As(err, &se) || se.Status != 404 || !strings.Contains(err.Error(), helpHint) {
		t.Errorf("docs of helpy without a keyword index: %v; want 404 and %q", err, helpHint)
	}
	if _, err := os.Stat(helpyRan(bin)); err == nil {
		t.Error("degraded serve ran helpy for a client")
	}

	runChromaOn(t, addr)
	// no query, docs or status from here on: only health, which tries
	// nothing, so serve's own retry must find Chroma
	deadline := time.Now().Add(60 * time.Second)
	for {
		h, err := c.Health(ctx)
		if err == nil && !h.Degraded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve still says %+v %v 60 s after Chroma came up, with no request; want it back by itself", h, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// the first request after is answered from the index
	if res, err := c.Query(ctx, answerlayer.QueryRequest{Request: request, K: 3, Mode: "semantic"}); err != nil || res.Degraded || len(res.Commands) == 0 {
		t.Errorf("first query after Chroma came up: %+v %v; want a semantic answer", res, err)
	}
	if _, err := c.Docs(ctx, "frob", "", false); err != nil {
		t.Errorf("docs after Chroma came up: %v", err)
	}
	if st, err := c.StatusOf(ctx, answerlayer.StatusRequest{Detailed: false}); err != nil || len(st.Collections) == 0 {
		t.Errorf("status after Chroma came up: %+v %v", st, err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if !strings.Contains(log.String(), "Chroma answers again at http://"+addr+": answering from the index") {
		t.Errorf("serve's log: %s", log)
	}
}

// runChromaOn runs `chroma run` on addr over the private data directory
// (where frobIndex built the index) until the test ends.
func runChromaOn(t *testing.T, addr string) {
	t.Helper()
	bin, err := chroma.FindBin("", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := config.ChromaDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "run", "--path", dir, "--host", host, "--port", port)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(90 * time.Second)
	for chroma.Answers(context.Background(), "http://"+addr) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("chroma run on %s did not answer within 90 s", addr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestMCPDegradedWithoutChroma: `cmdai mcp` that cannot reach Chroma (a
// closed --chroma-url port) answers search_commands keyword-only from
// the keyword index on disk, its first line saying so; command_docs from
// the keyword index (frob's synopsis and options), first line saying so;
// a command it lacks without a man page (helpy) is an error saying what
// the user runs to index its --help, and is never run, nor for a search
// naming it with no keyword index on disk; an unknown command is an
// error; status needs Chroma and says so; the session goes on.
func TestMCPDegradedWithoutChroma(t *testing.T) {
	realEnv(t)
	frobIndex(t)
	bin := onPath(t)
	const request = "twiddle the bits of files recursively"
	want, code, errOut := queryJSON(t, "--mode", "keyword", "-k", "3", request) // saves the keyword index
	if code != 0 || len(want.Commands) == 0 {
		t.Fatalf("keyword query: exit %d %s", code, errOut)
	}
	call, _ := mcpSession(t, cmdutil.ChromaOptions{URL: "http://" + testnet.ClosedPort(t)})
	for _, mode := range []string{"semantic", "hybrid"} {
		text, isErr := call(toolCall{"search_commands", map[string]any{"query": request, "k": 3, "mode": mode}})
		first, rest, _ := strings.Cut(text, "\n")
		if isErr || !strings.HasPrefix(first, "degraded: Chroma unavailable") || !strings.Contains(first, "keyword-only") || !strings.HasPrefix(rest, "1. "+want.Commands[0].Command) {
			t.Errorf("--mode %s (error %v):\n%s", mode, isErr, text)
		}
	}
	for _, c := range []struct {
		args       map[string]any
		from, want string
	}{
		{map[string]any{"command": "frob", "section": "synopsis"}, "from the keyword index", "frob [OPTION]... FILE..."},
		{map[string]any{"command": "frob", "section": "options"}, "from the keyword index", "--recursive"},
	} {
		text, isErr := call(toolCall{"command_docs", c.args})
		first, rest, _ := strings.Cut(text, "\n")
		if isErr || !strings.HasPrefix(first, "degraded: Chroma unavailable") || !strings.Contains(first, c.from) || !strings.Contains(rest, c.want) {
			t.Errorf("command_docs %v without Chroma (error %v):\n%s\nwant %q from %q", c.args, isErr, text, c.want, c.from)
		}
	}
	if text, isErr := call(toolCall{"command_docs", map[string]any{"command": "no-such-command"}}); !isErr || !strings.Contains(text, "unknown command") {
		t.Errorf("command_docs of an unknown command: error %v %q", isErr, text)
	}
	if text, isErr := call(toolCall{"command_docs", map[string]any{"command": "helpy", "option": "--quiet"}}); !isErr || !strings.Contains(text, "no man page installed") || !strings.Contains(text, helpHint) {
		t.Errorf("command_docs of helpy (no man page): error %v %q; want an error saying %q", isErr, text, helpHint)
	}
	// no keyword index on disk: a search naming helpy does not run it either
	kw, err := config.KeywordDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(kw); err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(toolCall{"search_commands", map[string]any{"query": "helpy: say nothing, quietly"}}); !isErr || !strings.Contains(text, "no man page installed for helpy") || !strings.Contains(text, helpHint) {
		t.Errorf("search_commands naming helpy, no keyword index: error %v %q; want an error saying %q", isErr, text, helpHint)
	}
	if _, err := os.Stat(helpyRan(bin)); err == nil {
		t.Error("degraded MCP ran helpy for a client")
	}
	if text, isErr := call(toolCall{"index_status", nil}); !isErr || !strings.Contains(strings.ToLower(text), "chroma") {
		t.Errorf("index_status without Chroma: error %v %q; want an error naming Chroma", isErr, text)
	}
}

// onPath puts the made-up machine's commands (frob with its page, helpy
// with --help only) first on $PATH, and its man tree on $MANPATH, for
// what reads the installed commands live; it returns their directory.
func onPath(t *testing.T) string {
	t.Helper()
	bin, man, _ := fakeMachine(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("MANPATH", man)
	return bin
}

// helpHint is what a degraded answer tells the user to run for helpy,
// which has no man page: cmdai never runs it for a client.
const helpHint = "cmdai index init --command helpy --help-fallback"

func hasRecord(doc search.CommandDoc, option string) bool {
	for _, r := range doc.Records {
		if r.Option == option {
			return true
		}
	}
	return false
}
