package querycmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/render"
)

// runCmd runs `cmdai index ARGS...` with cmd under index, as the app
// does (cmdtest.Run).
func runCmd(t *testing.T, cmd *cli.Command, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), nil, append([]string{"index"}, args...)...)
}

func testFactory() (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: out, ErrOut: errOut}, Getenv: func(string) string { return "" }}, out, errOut
}

// parsed runs `index query ARGS...` and returns the options its run got.
func parsed(t *testing.T, args ...string) *QueryOptions {
	t.Helper()
	f, _, _ := testFactory()
	var got *QueryOptions
	err := runCmd(t, NewCmdQuery(f, func(o *QueryOptions) error { got = o; return nil }), append([]string{"query"}, args...)...)
	if err != nil || got == nil {
		t.Fatalf("query %q: %v (run: %v)", args, err, got != nil)
	}
	return got
}

// TestQueryRequest: the flags become the request the answering layer
// gets, defaults included; the model variant is the index's unless one
// is asked for.
func TestQueryRequest(t *testing.T) {
	o := parsed(t, "count", "lines ", "in", "a", "file")
	want := answer.QueryRequest{Request: "count lines  in a file", K: 5, Mode: string(search.DefaultMode), Matches: search.DefaultMatches}
	if got := o.request(); got != want {
		t.Errorf("defaults: %+v, want %+v", got, want)
	}
	if o.JSON || o.Context || o.ContextTokens != render.DefaultContextTokens || o.Model.Variant != "" || o.NoServe {
		t.Errorf("defaults: %+v", o)
	}
	o = parsed(t, "count lines", "-k", "3", "--mode", "keyword", "--matches", "2", "--strict", "--distro", "fedora-40", "--context", "--max-tokens", "300", "--json")
	want = answer.QueryRequest{Request: "count lines", K: 3, Mode: "keyword", Matches: 2, Strict: true, Distro: "fedora-40", Context: true}
	if got := o.request(); got != want || o.ContextTokens != 300 || !o.JSON {
		t.Errorf("flags: %+v (tokens %d, json %v), want %+v", got, o.ContextTokens, o.JSON, want)
	}
	if got := parsed(t, "x", "--full").request(); !got.Full || got.Matches != search.DefaultMatches {
		t.Errorf("--full: %+v", got)
	}
	if o := parsed(t, "x", "--model-variant", "fp32", "--embed-backend", "go"); o.Model.Variant != "fp32" || o.Model.Backend != "go" {
		t.Errorf("model flags: %+v", o.Model)
	}
}

// TestQueryUsageErrors: each bad input is a usage error (exit 2) naming
// the flag, and nothing runs.
func TestQueryUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "say what you want to do"},
		{[]string{"  "}, "say what you want to do"},
		{[]string{"x", "-k", "0"}, "-k must be 1 or more, not 0"},
		{[]string{"x", "--matches", "0"}, "--matches must be 1 or more, not 0"},
		{[]string{"x", "--full", "--matches", "2"}, "--full shows every match: leave out --matches 2, or --full"},
		{[]string{"x", "--max-tokens", "-1"}, "--max-tokens must be 1 or more, not -1"},
		{[]string{"x", "--mode", "psychic"}, "--mode: unknown mode"},
		{[]string{"x", "--distro", "Not An ID!"}, "--distro:"},
		{[]string{"x", "--model-variant", "int4"}, `--model-variant "int4"`},
		{[]string{"x", "--embed-backend", "gpu"}, `--embed-backend "gpu"`},
		{[]string{"x", "--no-such-flag"}, "no-such-flag"},
	} {
		f, _, _ := testFactory()
		ran := false
		err := runCmd(t, NewCmdQuery(f, func(*QueryOptions) error { ran = true; return nil }), append([]string{"query"}, c.args...)...)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) || ran {
			t.Errorf("query %q: %v (exit %d, ran %v); want exit 2 with %q", c.args, err, cmdutil.ExitCode(err), ran, c.want)
		}
	}
}

// TestQueryAnswerer: a running serve answers unless --no-serve, another
// Chroma or another model is asked for; this process answers for the
// distribution and model variant asked.
func TestQueryAnswerer(t *testing.T) {
	for _, c := range []struct {
		args  []string
		local bool
	}{
		{nil, false},
		{[]string{"--no-serve"}, true},
		{[]string{"--chroma-url", "http://127.0.0.1:1"}, true},
		{[]string{"--chroma-data", "/tmp/x"}, true},
		{[]string{"--model-variant", "int8"}, true},
		{[]string{"--embed-backend", "ort"}, true},
	} {
		o := parsed(t, append([]string{"x", "--distro", "fedora-40"}, c.args...)...)
		a, ok := o.answerer().(*cmdutil.ServeOrHere)
		if !ok || a.Local != c.local {
			t.Errorf("%q: %#v; want Local %v", c.args, a, c.local)
			continue
		}
		here, ok := a.Here.(*answer.OneShot)
		if !ok || here.Distro != "fedora-40" || here.Variant != o.Model.Variant {
			t.Errorf("%q: here is %#v", c.args, a.Here)
		}
	}
}

// fixed answers every query with res (or err), and keeps the request.
type fixed struct {
	answer.Answerer
	res QueryResult
	err error
	got []answer.QueryRequest
}

func (f *fixed) Query(_ context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	f.got = append(f.got, q)
	return f.res, f.err
}

var result = QueryResult{Request: "count lines", Collection: "cmdai_linux_debian-12", Millis: 12.5, Commands: []search.CommandHit{
	{Command: "wc", Description: "print newline, word, and byte counts", Score: 0.8125, Matches: []search.Match{
		{Section: "OPTIONS", Option: "-l", Score: 0.75}, {Section: "NAME", Score: 0.5},
	}},
	{Command: "git-shortlog", Parent: "git", Description: "Summarize git log output", Score: 0.25},
}}

// TestQueryPrints: the answer as text, --json or --context, one call
// with the request of the flags; a degraded answer warns on stderr; an
// error is returned as it is, and nothing printed.
func TestQueryPrints(t *testing.T) {
	run := func(res QueryResult, err error, args ...string) (string, string, error, *fixed) {
		f, out, errOut := testFactory()
		a := &fixed{res: res, err: err}
		runErr := runCmd(t, NewCmdQuery(f, func(o *QueryOptions) error { return runQuery(context.Background(), o, a) }), append([]string{"query", "count lines"}, args...)...)
		return out.String(), errOut.String(), runErr, a
	}
	out, errOut, err, a := run(result, nil)
	want := `1. wc  (0.812)  print newline, word, and byte counts
     0.750  OPTIONS -l
     0.500  NAME
2. git shortlog: git-shortlog  (0.250)  Summarize git log output
`
	if err != nil || out != want || errOut != "" {
		t.Errorf("text: %v\n%s\nstderr %q; want\n%s", err, out, errOut, want)
	}
	if len(a.got) != 1 || a.got[0].Request != "count lines" || a.got[0].K != 5 {
		t.Errorf("requests: %+v; want one", a.got)
	}
	var js bytes.Buffer
	jsonout.Encode(&js, result)
	if out, _, err, _ := run(result, nil, "--json"); err != nil || out != js.String() {
		t.Errorf("--json: %v\n%s\nwant\n%s", err, out, js.String())
	}
	ctxWant := render.Context(result.Commands, 300)
	if out, _, err, a := run(result, nil, "--context", "--max-tokens", "300", "--json"); err != nil || out != ctxWant || !a.got[0].Context {
		t.Errorf("--context: %v\n%s\nwant\n%s", err, out, ctxWant)
	}
	degraded := result
	degraded.Degraded, degraded.DegradedReason = true, "Chroma unavailable (no heartbeat): keyword-only answer from the keyword index /k"
	out, errOut, err, _ = run(degraded, nil)
	wantErr := "warning: Chroma unavailable (no heartbeat): keyword-only answer from the keyword index /k\n  (start Chroma or fix --chroma-url for semantic answers; --strict makes this an error)\n"
	if err != nil || out != want || errOut != wantErr {
		t.Errorf("degraded: %v\n%s\nstderr %q; want %q", err, out, errOut, wantErr)
	}
	down := cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("chroma unreachable"))
	out, errOut, err, _ = run(QueryResult{}, down, "--strict")
	if !errors.Is(err, down) || cmdutil.ExitCode(err) != cmdutil.ExitUnreachable || out != "" || errOut != "" {
		t.Errorf("error: %v (exit %d), out %q, stderr %q; want it as it is, nothing printed", err, cmdutil.ExitCode(err), out, errOut)
	}
}
