package explaincmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/internal/jsonout"
)

// runCmd runs `cmdai ARGS...` with cmd at the top, as the app does
// (cmdtest.Run).
func runCmd(t *testing.T, cmd *cli.Command, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmd, nil, args...)
}

func testFactory(stdin io.Reader) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.Factory{IO: &cmdutil.IOStreams{In: stdin, Out: out, ErrOut: errOut}, Getenv: func(string) string { return "" }}, out, errOut
}

// parsed runs `explain ARGS...` with stdin and returns the options its
// run got.
func parsed(t *testing.T, stdin io.Reader, args ...string) *Options {
	t.Helper()
	f, _, _ := testFactory(stdin)
	var got *Options
	err := runCmd(t, NewCmdExplain(f, func(o *Options) error { got = o; return nil }), append([]string{"explain"}, args...)...)
	if err != nil || got == nil {
		t.Fatalf("explain %q: %v (run: %v)", args, err, got != nil)
	}
	return got
}

// TestExplainRequest: the line (an argument, or stdin for -) and the
// flags become the request the answering layer gets.
func TestExplainRequest(t *testing.T) {
	o := parsed(t, nil, "tar -xzf a.tgz | wc -l")
	if got := o.request(); got != (answer.ExplainRequest{Line: "tar -xzf a.tgz | wc -l"}) || o.JSON || o.Check || o.NoServe {
		t.Errorf("defaults: %+v %+v", got, o)
	}
	o = parsed(t, strings.NewReader("grep -c 'a\nb' f\n"), "-", "--check", "--json", "--strict", "--distro", "fedora-40")
	want := answer.ExplainRequest{Line: "grep -c 'a\nb' f", Distro: "fedora-40", Strict: true}
	if got := o.request(); got != want || !o.JSON || !o.Check {
		t.Errorf("flags and stdin: %+v (json %v, check %v), want %+v", got, o.JSON, o.Check, want)
	}
}

// TestExplainUsageErrors: each bad input is a usage error (exit 2), and
// nothing runs.
func TestExplainUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give the line to check, quoted as one argument"},
		{[]string{"tar", "a.tgz"}, `unexpected argument "a.tgz": cmdai explain takes one argument`},
		{[]string{"ls", "--distro", "Not An ID!"}, "--distro:"},
		{[]string{"-"}, "no stdin to read the line from"},
		{[]string{"ls", "--no-such-flag"}, "no-such-flag"},
		{[]string{"ls", "--color", "sometimes"}, `--color "sometimes": use auto, always or never`},
	} {
		f, _, _ := testFactory(nil)
		ran := false
		err := runCmd(t, NewCmdExplain(f, func(*Options) error { ran = true; return nil }), append([]string{"explain"}, c.args...)...)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) || ran {
			t.Errorf("explain %q: %v (exit %d, ran %v); want exit 2 with %q", c.args, err, cmdutil.ExitCode(err), ran, c.want)
		}
	}
}

// TestExplainAnswerer: a running serve judges unless --no-serve or
// another Chroma is asked for; this process judges by the distribution
// asked.
func TestExplainAnswerer(t *testing.T) {
	for _, c := range []struct {
		args  []string
		local bool
	}{
		{nil, false},
		{[]string{"--no-serve"}, true},
		{[]string{"--chroma-url", "http://127.0.0.1:1"}, true},
		{[]string{"--chroma-data", "/tmp/x"}, true},
	} {
		o := parsed(t, nil, append([]string{"ls -l", "--distro", "fedora-40"}, c.args...)...)
		a, ok := o.answerer().(*cmdutil.ServeOrHere)
		if !ok || (a.Serve == nil) != c.local {
			t.Errorf("%q: %#v; want serve ruled out %v", c.args, a, c.local)
			continue
		}
		if here, ok := a.Local.(answer.Degrade).Inner.(*answer.OneShot); !ok || here.Distro != "fedora-40" {
			t.Errorf("%q: here is %#v", c.args, a.Local)
		}
	}
}

// fixed answers every line with res (or err), and keeps the request.
type fixed struct {
	answer.Answerer
	res Result
	err error
	got []answer.ExplainRequest
}

func (f *fixed) Explain(_ context.Context, q answer.ExplainRequest) (answer.ExplainResult, error) {
	f.got = append(f.got, q)
	return f.res, f.err
}

var result = Result{Collection: "cmdai_linux_debian-12", Millis: 3.25, Result: explain.Result{Line: "wc -q a", UnknownCount: 1, Commands: []explain.Command{
	{Name: "wc", Verdict: judge.Known, Page: "wc(1)", Summary: "print newline, word, and byte counts", Words: []judge.Word{
		{Text: "-q", Verdict: judge.UnknownOption, Note: "no such option in wc(1)"},
		{Text: "a", Verdict: judge.Operand},
	}},
}}}

// TestExplainPrints: the result as text or --json, one call with the
// request of the flags; a degraded result warns on stderr; --check exits
// 7 on a line that does not check, after printing it; an error is
// returned as it is, and nothing printed.
func TestExplainPrints(t *testing.T) {
	run := func(res Result, err error, args ...string) (string, string, error, *fixed) {
		f, out, errOut := testFactory(nil)
		a := &fixed{res: res, err: err}
		runErr := runCmd(t, NewCmdExplain(f, func(o *Options) error { return runExplain(context.Background(), o, a) }), append([]string{"explain", "wc -q a"}, args...)...)
		return out.String(), errOut.String(), runErr, a
	}
	out, errOut, err, a := run(result, nil)
	if err != nil || out != Text(result.Result) || errOut != "" || !strings.Contains(out, "unknown option") {
		t.Errorf("text: %v\n%s\nstderr %q", err, out, errOut)
	}
	if len(a.got) != 1 || a.got[0] != (answer.ExplainRequest{Line: "wc -q a"}) {
		t.Errorf("requests: %+v; want one", a.got)
	}
	var js bytes.Buffer
	jsonout.Encode(&js, result)
	if out, _, err, _ := run(result, nil, "--json"); err != nil || out != js.String() {
		t.Errorf("--json: %v\n%s\nwant\n%s", err, out, js.String())
	}
	out, _, err, _ = run(result, nil, "--check")
	if cmdutil.ExitCode(err) != cmdutil.ExitUnknownOption || err.Error() != "the line does not check: 1 unknown option" || out != Text(result.Result) {
		t.Errorf("--check: %v (exit %d), printed %q; want exit 7 after the result", err, cmdutil.ExitCode(err), out)
	}
	ok := result
	ok.OK, ok.UnknownCount = true, 0
	if _, _, err, _ := run(ok, nil, "--check"); err != nil {
		t.Errorf("--check of a line that checks: %v", err)
	}
	degraded := result
	degraded.Degraded, degraded.DegradedReason = true, "Chroma unavailable (no heartbeat): option records from the keyword index /k"
	_, errOut, err, _ = run(degraded, nil)
	wantErr := "warning: Chroma unavailable (no heartbeat): option records from the keyword index /k\n  (start Chroma or fix --chroma-url to judge by the index; --strict makes this an error)\n"
	if err != nil || errOut != wantErr {
		t.Errorf("degraded: %v, stderr %q; want %q", err, errOut, wantErr)
	}
	bad := cmdutil.WithCode(cmdutil.ExitUsage, errors.New("bad command line: cannot parse it as shell"))
	out, errOut, err, _ = run(Result{}, bad, "--check")
	if !errors.Is(err, bad) || cmdutil.ExitCode(err) != cmdutil.ExitUsage || out != "" || errOut != "" {
		t.Errorf("error: %v (exit %d), out %q, stderr %q; want it as it is, nothing printed", err, cmdutil.ExitCode(err), out, errOut)
	}
}
