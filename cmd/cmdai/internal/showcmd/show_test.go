package showcmd

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
	"github.com/cmdai/cmdai/search/shown"
)

func testFactory() (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: out, ErrOut: errOut}, Getenv: func(string) string { return "" }}, out, errOut
}

func runCmd(t *testing.T, cmd *cli.Command, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmd, nil, append([]string{"show"}, args...)...)
}

// fixed answers every Docs with doc (or err), and keeps the requests.
type fixed struct {
	answer.Answerer
	doc search.CommandDoc
	err error
	got []answer.DocsRequest
}

func (f *fixed) Docs(_ context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	f.got = append(f.got, q)
	return f.doc, f.err
}

// wcDoc is wc's records as GET /v1/docs gives them (summary, options in
// flag order, examples).
func wcDoc() search.CommandDoc {
	opt := func(name, text string) shown.Match {
		return shown.Match{ID: "wc.1#OPTIONS#" + name, Kind: index.KindOption, Section: "OPTIONS", Option: name, Text: "wc(1) option " + text}
	}
	return search.CommandDoc{
		CommandHit: shown.CommandHit{Command: "wc", Description: "print newline, word, and byte counts", Version: "9.1-1", Package: "coreutils", ManSection: "1"},
		Records: []shown.Match{
			{ID: "wc.1#NAME", Kind: index.KindSummary, Section: "NAME", Text: "wc(1) - print newline, word, and byte counts\nSYNOPSIS\nwc [OPTION]... [FILE]...\nPrint newline, word, and byte counts for each FILE."},
			opt("--bytes", "-c, --bytes\nprint the byte counts"),
			opt("--files0-from", "--files0-from=F\nread input from the files specified by NUL-terminated names in file F"),
			opt("--lines", "-l, --lines\nprint the newline counts. A line ends at a newline."),
			opt("--words", "-w, --words\nprint the word counts"),
			{ID: "wc.1#EXAMPLES#1", Kind: index.KindExample, Section: "EXAMPLES", Text: "wc(1) example\nCount the lines of a file:\n\nwc -l notes.txt"},
		},
	}
}

// TestShowCard: the card (page, version, description, synopsis, options
// most used first as spelled, examples) in one call for the command
// named; --all shows every option; --json is the doc as it came.
func TestShowCard(t *testing.T) {
	run := func(args ...string) (string, string, error, *fixed) {
		f, out, errOut := testFactory()
		a := &fixed{doc: wcDoc()}
		err := runCmd(t, NewCmdShow(f, func(o *Options) error { return runShow(context.Background(), o, a) }), args...)
		return out.String(), errOut.String(), err, a
	}
	out, errOut, err, a := run("wc")
	want := `wc(1) [9.1-1 (package coreutils)] - print newline, word, and byte counts

SYNOPSIS
  wc [OPTION]... [FILE]...

OPTIONS
  -l, --lines      print the newline counts.
  -c, --bytes      print the byte counts
  -w, --words      print the word counts
  --files0-from=F  read input from the files specified by NUL-terminated names in file F

EXAMPLES
  $ wc -l notes.txt
    Count the lines of a file
`
	if err != nil || out != want || errOut != "" {
		t.Errorf("card: %v\n%s\nwant\n%s\nstderr %q", err, out, want, errOut)
	}
	if len(a.got) != 1 || a.got[0] != (answer.DocsRequest{Command: "wc"}) {
		t.Errorf("requests: %+v", a.got)
	}
	if _, _, _, a := run("git", "commit", "--strict"); len(a.got) != 1 || a.got[0] != (answer.DocsRequest{Command: "git commit", Strict: true}) {
		t.Errorf("git commit --strict asked %+v", a.got)
	}
	var js bytes.Buffer
	_ = jsonout.Encode(&js, wcDoc())
	if out, _, err, _ := run("wc", "--json"); err != nil || out != js.String() {
		t.Errorf("--json: %v\n%s\nwant\n%s", err, out, js.String())
	}
}

// TestShowCuts: past DefaultOptions options a line says how many more
// and how to see them; --all shows them all.
func TestShowCuts(t *testing.T) {
	doc := wcDoc()
	for i := 0; i < DefaultOptions; i++ {
		name := fmt.Sprintf("--opt%02d", i)
		doc.Records = append(doc.Records, shown.Match{Kind: index.KindOption, Option: name, Text: "wc(1) option " + name + "\nan option"})
	}
	run := func(args ...string) string {
		f, out, _ := testFactory()
		if err := runCmd(t, NewCmdShow(f, func(o *Options) error { return runShow(context.Background(), o, &fixed{doc: doc}) }), args...); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if out := run("wc"); strings.Count(out, "an option") != DefaultOptions-4 || !strings.HasSuffix(out, "\n(4 more: cmdai show wc --all)\n") {
		t.Errorf("cut:\n%s", out)
	}
	if out := run("wc", "--all"); strings.Count(out, "an option") != DefaultOptions || strings.Contains(out, "more:") {
		t.Errorf("--all:\n%s", out)
	}
}

// TestShowErrors: bad input is a usage error before anything is asked;
// a command the index lacks is a usage error naming cmdai search; no
// index keeps its exit code and message; a degraded doc warns.
func TestShowErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "name a command: cmdai show tar"},
		{[]string{"a", "b", "c"}, `unexpected argument "c"`},
		{[]string{"--", "-x"}, "is not a command name"},
		{[]string{"wc", "--color", "maybe"}, `--color "maybe"`},
		{[]string{"wc", "--distro", "Not An ID!"}, "--distro:"},
	} {
		f, _, _ := testFactory()
		a := &fixed{}
		err := runCmd(t, NewCmdShow(f, func(o *Options) error { return runShow(context.Background(), o, a) }), c.args...)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(fmt.Sprint(err), c.want) || len(a.got) != 0 {
			t.Errorf("show %q: %v (exit %d, asked %d); want exit 2 with %q", c.args, err, cmdutil.ExitCode(err), len(a.got), c.want)
		}
	}
	show := func(a *fixed) (string, string, error) {
		f, out, errOut := testFactory()
		err := runCmd(t, NewCmdShow(f, func(o *Options) error { return runShow(context.Background(), o, a) }), "frob")
		return out.String(), errOut.String(), err
	}
	unknown := fmt.Errorf("%w \"frob\": it is not in the index", search.ErrUnknownCommand)
	_, _, err := show(&fixed{err: unknown})
	// the test factory's PATH holds no frob: not installed, said so
	want := `frob is not in the index: frob is not installed here (no frob on $PATH); find the command for a job with cmdai search "<what you want to do>"`
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || fmt.Sprint(err) != want {
		t.Errorf("unknown command: %v (exit %d); want exit 2, %q", err, cmdutil.ExitCode(err), want)
	}
	noIndex := cmdutil.WithCode(cmdutil.ExitNoIndex, errors.New("no index cmdai_linux_debian-12: build it with `cmdai index init`"))
	if out, _, err := show(&fixed{err: noIndex}); !errors.Is(err, noIndex) || cmdutil.ExitCode(err) != cmdutil.ExitNoIndex || out != "" {
		t.Errorf("no index: %v (exit %d), printed %q", err, cmdutil.ExitCode(err), out)
	}
	doc := wcDoc()
	doc.Degraded, doc.DegradedReason = true, "Chroma unavailable: records from the keyword index /k"
	if out, errOut, err := show(&fixed{doc: doc}); err != nil || !strings.HasPrefix(errOut, "warning: Chroma unavailable: records from the keyword index /k\n") || !strings.Contains(out, "-l, --lines") {
		t.Errorf("degraded: %v, stderr %q\n%s", err, errOut, out)
	}
}

// TestShowAnswerer: a running serve answers unless --no-serve, another
// Chroma or another distribution is asked for.
func TestShowAnswerer(t *testing.T) {
	for _, c := range []struct {
		args  []string
		local bool
	}{
		{nil, false},
		{[]string{"--no-serve"}, true},
		{[]string{"--chroma-url", "http://127.0.0.1:1"}, true},
		{[]string{"--distro", "fedora-40"}, true},
	} {
		f, _, _ := testFactory()
		var got *Options
		if err := runCmd(t, NewCmdShow(f, func(o *Options) error { got = o; return nil }), append([]string{"wc"}, c.args...)...); err != nil {
			t.Fatal(err)
		}
		a, ok := got.answerer().(*cmdutil.ServeOrHere)
		if !ok || (a.Serve == nil) != c.local {
			t.Errorf("%q: %#v; want serve ruled out %v", c.args, a, c.local)
		}
	}
}

// TestShowNarrowedToARequest: a request after the command (several
// words) goes with the doc's request, and the card puts the options the
// answer chose first (here --words, then --bytes), the others after.
func TestShowNarrowedToARequest(t *testing.T) {
	f, out, _ := testFactory()
	doc := wcDoc()
	// as search's ForRequest gives it: the chosen first, then the rest
	recs := doc.Records
	doc.Records = append([]shown.Match{recs[4], recs[1]}, recs[0], recs[2], recs[3], recs[5])
	doc.Chosen = 2
	a := &fixed{doc: doc}
	err := runCmd(t, NewCmdShow(f, func(o *Options) error { return runShow(context.Background(), o, a) }), "wc", "count the words of a file")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.got) != 1 || a.got[0] != (answer.DocsRequest{Command: "wc", Request: "count the words of a file"}) {
		t.Errorf("requests: %+v", a.got)
	}
	want := `OPTIONS
  -w, --words      print the word counts
  -c, --bytes      print the byte counts
  -l, --lines      print the newline counts.
`
	if !strings.Contains(out.String(), want) {
		t.Errorf("card:\n%s\nwant the chosen options first:\n%s", out.String(), want)
	}
	f2, _, _ := testFactory()
	a2 := &fixed{doc: wcDoc()}
	if err := runCmd(t, NewCmdShow(f2, func(o *Options) error { return runShow(context.Background(), o, a2) }), "git", "commit", "amend the last commit"); err != nil || len(a2.got) != 1 ||
		a2.got[0] != (answer.DocsRequest{Command: "git commit", Request: "amend the last commit"}) {
		t.Errorf("git commit with a request: %v, asked %+v", err, a2.got)
	}
}
