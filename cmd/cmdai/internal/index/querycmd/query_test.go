package querycmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/render"
	"github.com/cmdai/cmdai/search/shown"
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
// gets, defaults included (no --matches: the option ranker's choice); the model variant is the index's unless one
// is asked for.
func TestQueryRequest(t *testing.T) {
	o := parsed(t, "count", "lines ", "in", "a", "file")
	// Matches 0: as many as the option ranker chose (search.Compact)
	want := answer.QueryRequest{Request: "count lines  in a file", K: 5, Mode: string(search.DefaultMode), Matches: 0}
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
	if got := parsed(t, "x", "--full").request(); !got.Full || got.Matches != 0 {
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
		if !ok || (a.Serve == nil) != c.local {
			t.Errorf("%q: %#v; want serve ruled out %v", c.args, a, c.local)
			continue
		}
		here, ok := a.Local.(answer.Degrade).Inner.(*answer.OneShot)
		if !ok || here.Distro != "fedora-40" || here.Variant != o.Model.Variant {
			t.Errorf("%q: here is %#v", c.args, a.Local)
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

var result = QueryResult{Request: "count lines", Collection: "cmdai_linux_debian-12", Millis: 12.5, Commands: []shown.CommandHit{
	{Command: "wc", Description: "print newline, word, and byte counts", Score: 0.8125, Matches: []shown.Match{
		{Kind: index.KindOption, Section: "OPTIONS", Option: "--lines", Score: 0.75, Text: "wc(1) option -l, --lines\nprint the newline counts. A line ends at a newline."},
		{Kind: index.KindExample, Section: "EXAMPLES", Score: 0.625, Text: "wc(1) example\nCount the lines of a file:\n\nwc -l notes.txt"},
		{Kind: index.KindSummary, Section: "NAME", Score: 0.5, Text: "wc(1) - print newline, word, and byte counts\nSYNOPSIS\nwc [OPTION]... [FILE]...\nPrint newline, word, and byte counts for each FILE. A word is a run of letters."},
	}},
	{Command: "git-shortlog", Parent: "git", Description: "Summarize git log output", Score: 0.25, Matches: []shown.Match{
		{Kind: index.KindSection, Section: "DESCRIPTION", Score: 0.125, Text: "git-shortlog(1) DESCRIPTION\nSummarizes git log output in a format suitable for release announcements. Each commit is grouped by author."},
	}},
}}

// The text of result: per command its name and description, each match
// as a person reads it (an option as spelled with its first sentence,
// an example's command line, prose's first sentence), no score.
const resultText = `1. wc - print newline, word, and byte counts
   -l, --lines  print the newline counts.
   $ wc -l notes.txt
     Count the lines of a file
   Print newline, word, and byte counts for each FILE.

2. git shortlog - Summarize git log output
   Summarizes git log output in a format suitable for release announcements.
`

// TestQueryPrints: the answer as text, --json or --context, one call
// with the request of the flags (the text asks for whole matches and
// keeps --matches of them); a degraded answer warns on stderr; an
// error is returned as it is, and nothing printed.
func TestQueryPrints(t *testing.T) {
	run := func(res QueryResult, err error, args ...string) (string, string, error, *fixed) {
		f, out, errOut := testFactory()
		a := &fixed{res: res, err: err}
		runErr := runCmd(t, NewCmdQuery(f, func(o *QueryOptions) error { return runQuery(context.Background(), o, a) }), append([]string{"query", "count lines"}, args...)...)
		return out.String(), errOut.String(), runErr, a
	}
	out, errOut, err, a := run(clone(result), nil, "--matches", "3")
	if err != nil || out != resultText || errOut != "" {
		t.Errorf("text: %v\n%s\nstderr %q; want\n%s", err, out, errOut, resultText)
	}
	if len(a.got) != 1 || a.got[0].Request != "count lines" || a.got[0].K != 5 || !a.got[0].Full || a.got[0].Matches != 3 {
		t.Errorf("requests: %+v; want one, whole matches", a.got)
	}
	if out, _, _, _ := run(clone(result), nil); strings.Contains(out, "Print newline") || !strings.Contains(out, "$ wc -l notes.txt") {
		t.Errorf("text keeps the best --matches (2) of each command:\n%s", out)
	}
	var js bytes.Buffer
	jsonout.Encode(&js, result)
	out, _, err, a = run(clone(result), nil, "--json")
	if err != nil || out != js.String() || a.got[0].Full {
		t.Errorf("--json: %v\n%s\nwant\n%s", err, out, js.String())
	}
	ctxWant := render.Context(result.Commands, 300)
	if out, _, err, a := run(result, nil, "--context", "--max-tokens", "300", "--json"); err != nil || out != ctxWant || !a.got[0].Context {
		t.Errorf("--context: %v\n%s\nwant\n%s", err, out, ctxWant)
	}
	degraded := result
	degraded.Degraded, degraded.DegradedReason = true, "Chroma unavailable (no heartbeat): keyword-only answer from the keyword index /k"
	out, errOut, err, _ = run(degraded, nil, "--matches", "3")
	wantErr := "warning: Chroma unavailable (no heartbeat): keyword-only answer from the keyword index /k\n  (start Chroma or fix --chroma-url for semantic answers; --strict makes this an error)\n"
	if err != nil || out != resultText || errOut != wantErr {
		t.Errorf("degraded: %v\n%s\nstderr %q; want %q", err, out, errOut, wantErr)
	}
	down := cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("chroma unreachable"))
	out, errOut, err, _ = run(QueryResult{}, down, "--strict")
	if !errors.Is(err, down) || cmdutil.ExitCode(err) != cmdutil.ExitUnreachable || out != "" || errOut != "" {
		t.Errorf("error: %v (exit %d), out %q, stderr %q; want it as it is, nothing printed", err, cmdutil.ExitCode(err), out, errOut)
	}
}

// clone is res with its commands' matches copied: the text keeps the
// best --matches of each command in place.
func clone(res QueryResult) QueryResult {
	res.Commands = append([]shown.CommandHit(nil), res.Commands...)
	for i := range res.Commands {
		res.Commands[i].Matches = append([]shown.Match(nil), res.Commands[i].Matches...)
	}
	return res
}

// TestQueryScoresColour: --scores and -v add the scores and sections;
// colour only when asked or on a terminal without NO_COLOR or TERM=dumb;
// lines within the terminal's width.
func TestQueryScoresColour(t *testing.T) {
	run := func(tty bool, env map[string]string, width int, args ...string) string {
		t.Helper()
		out := &bytes.Buffer{}
		f := &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: out, ErrOut: &bytes.Buffer{}, OutTTY: tty, OutWidth: func() int { return width }},
			Getenv: func(k string) string { return env[k] }}
		a := &fixed{res: clone(result)}
		if err := runCmd(t, NewCmdQuery(f, func(o *QueryOptions) error { return runQuery(context.Background(), o, a) }), append([]string{"query", "count lines", "--matches", "3"}, args...)...); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return out.String()
	}
	scored := `1. wc  (0.812) - print newline, word, and byte counts
   0.750  OPTIONS  -l, --lines  print the newline counts.
   0.625  EXAMPLES  $ wc -l notes.txt
     Count the lines of a file
   0.500  NAME  Print newline, word, and byte counts for each FILE.

2. git shortlog  (0.250) - Summarize git log output
   0.125  DESCRIPTION  Summarizes git log output in a format suitable for release announcements.
`
	for _, flag := range []string{"--scores", "-v", "--verbose"} {
		if got := run(false, nil, 0, flag); got != scored {
			t.Errorf("%s:\n%s\nwant\n%s", flag, got, scored)
		}
	}
	const bold, esc = "\x1b[1mwc\x1b[0m", "\x1b["
	for _, c := range []struct {
		name   string
		tty    bool
		env    map[string]string
		args   []string
		colour bool
	}{
		{"pipe", false, nil, nil, false},
		{"terminal", true, nil, nil, true},
		{"terminal, NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, nil, false},
		{"terminal, NO_COLOR empty", true, map[string]string{"NO_COLOR": ""}, nil, true},
		{"terminal, TERM=dumb", true, map[string]string{"TERM": "dumb"}, nil, false},
		{"terminal, --color=never", true, nil, []string{"--color=never"}, false},
		{"pipe, --color=always", false, nil, []string{"--color=always"}, true},
		{"NO_COLOR, --color always", false, map[string]string{"NO_COLOR": "1"}, []string{"--color", "always"}, true},
	} {
		got := run(c.tty, c.env, 0, c.args...)
		if c.colour != strings.Contains(got, bold) || (!c.colour && strings.Contains(got, esc)) {
			t.Errorf("%s: colour %v, want %v:\n%q", c.name, strings.Contains(got, esc), c.colour, got)
		}
	}
	narrow := run(true, nil, 40, "--color=never")
	for _, l := range strings.Split(strings.TrimSuffix(narrow, "\n"), "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Errorf("a line of %d columns on a terminal of 40: %q", w, l)
		}
	}
	// too narrow for a column: an option's sentence goes under it
	if !strings.Contains(narrow, "\n   -l, --lines\n       print the newline counts.\n") || !strings.Contains(narrow, "\n   suitable for release announcements.\n") {
		t.Errorf("on 40 columns, wrapped:\n%s", narrow)
	}
	if wide := run(false, nil, 40, "--color=never"); wide != resultText {
		t.Errorf("piped, the terminal's width does not count:\n%s", wide)
	}
	f, _, _ := testFactory()
	err := runCmd(t, NewCmdQuery(f, func(*QueryOptions) error { return nil }), "query", "x", "--color", "sometimes")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(fmt.Sprint(err), `--color "sometimes": use auto, always or never`) {
		t.Errorf("--color sometimes: %v", err)
	}
}

// TestSearchIsQuery: `cmdai search` is `index query` under another
// name: the same flags, the same request, the same output; its usage
// errors name it.
func TestSearchIsQuery(t *testing.T) {
	print := func(cmd func(*cmdutil.Factory, func(*QueryOptions) error) *cli.Command, args ...string) (string, []answer.QueryRequest) {
		f, out, _ := testFactory()
		a := &fixed{res: clone(result)}
		c := cmd(f, func(o *QueryOptions) error { return runQuery(context.Background(), o, a) })
		var err error
		if c.Name == "search" {
			err = cmdtest.Run(t, c, nil, append([]string{"search"}, args...)...)
		} else {
			err = runCmd(t, c, append([]string{"query"}, args...)...)
		}
		if err != nil {
			t.Fatalf("%s %q: %v", c.Name, args, err)
		}
		return out.String(), a.got
	}
	for _, args := range [][]string{{"count", "lines", "in", "a", "file"}, {"count lines", "-k", "3", "--json"}, {"count lines", "--scores", "--matches", "3"}} {
		q, qr := print(NewCmdQuery, args...)
		s, sr := print(NewCmdSearch, args...)
		if q != s || fmt.Sprint(qr) != fmt.Sprint(sr) {
			t.Errorf("%q: search printed\n%s(asked %+v)\nquery printed\n%s(asked %+v)", args, s, sr, q, qr)
		}
	}
	f, _, _ := testFactory()
	err := cmdtest.Run(t, NewCmdSearch(f, func(*QueryOptions) error { return nil }), nil, "search")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(fmt.Sprint(err), `cmdai search "find files modified today"`) {
		t.Errorf("search without a request: %v", err)
	}
}
