package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/testnet"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search/shown"
)

// frobIndex builds the made-up machine's index (frob's page among them)
// with the private server.
func frobIndex(t *testing.T) {
	t.Helper()
	bin, man, _ := fakeMachine(t)
	io, _, errOut := testIO()
	opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
		ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(context.Background(), opts); err != nil {
		t.Fatalf("init: %v %s", err, errOut)
	}
}

func queryJSON(t *testing.T, args ...string) (querycmd.QueryResult, int, string) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"index", "query", "--distro", "debian-12", "--json"}, args...)...)
	var res querycmd.QueryResult
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("query %v: %v in %q", args, err, out)
		}
	}
	return res, code, errOut
}

// TestQueryDegradedWithoutChroma: with Chroma unreachable (a closed
// --chroma-url port, or no chroma to start) and the keyword index on disk,
// a query still answers, keyword-only, exit 0, and says so on stderr and
// in the JSON; --strict makes it exit 4 as before. Without a keyword index
// on disk TestNoServerNoIndex keeps exit 4.
func TestQueryDegradedWithoutChroma(t *testing.T) {
	realEnv(t)
	frobIndex(t)
	const request = "twiddle the bits of files recursively"
	want, code, errOut := queryJSON(t, "--mode", "keyword", "-k", "3", request)
	if code != 0 || len(want.Commands) == 0 || want.Degraded {
		t.Fatalf("keyword query with Chroma: exit %d, %+v %s", code, want, errOut)
	}

	for _, down := range [][]string{{"--chroma-url", "http://" + testnet.ClosedPort(t)}, {"--chroma-bin", "/nonexistent/chroma"}} {
		for _, mode := range []string{"semantic", "hybrid"} {
			res, code, errOut := queryJSON(t, append(down, "--mode", mode, "-k", "3", request)...)
			if code != 0 {
				t.Fatalf("%v --mode %s: exit %d %s; want a degraded answer, exit 0", down, mode, code, errOut)
			}
			if !res.Degraded || !strings.Contains(res.DegradedReason, "keyword-only") || res.Collection != "cmdai_linux_debian-12" {
				t.Errorf("%v --mode %s: degraded %v %q in %s, want true and the reason", down, mode, res.Degraded, res.DegradedReason, res.Collection)
			}
			if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "--strict") {
				t.Errorf("%v --mode %s: stderr %q, want a warning", down, mode, errOut)
			}
			if commands(res) != commands(want) {
				t.Errorf("%v --mode %s: degraded answer %q, want the keyword answer %q", down, mode, commands(res), commands(want))
			}
		}
		if _, code, errOut := queryJSON(t, append(down, "--strict", request)...); code != cmdutil.ExitUnreachable {
			t.Errorf("%v --strict: exit %d %s, want %d", down, code, errOut, cmdutil.ExitUnreachable)
		}
	}
	// plain output too, with the warning on stderr only
	code, out, errOut := runCLI(t, "index", "query", "--distro", "debian-12", "--chroma-url", "http://"+testnet.ClosedPort(t), request)
	if code != 0 || !strings.HasPrefix(out, "1. ") || strings.Contains(out, "warning") || !strings.Contains(errOut, "warning:") {
		t.Errorf("plain degraded answer: exit %d\n%s\nstderr %s", code, out, errOut)
	}
}

// TestQueryDegradedNamedCommand: with Chroma unreachable (a closed
// --chroma-url port) and an empty cache (no keyword index on disk), a
// request naming an installed command (frob, our fixture page, first on
// $PATH) is answered with it, ranked over its live page's chunks,
// degraded, exit 0; one naming a command without a man page (helpy) runs
// nothing and is exit 4, saying what the user runs to index its --help;
// --strict is exit 4; a request naming none is exit 4 as before.
func TestQueryDegradedNamedCommand(t *testing.T) {
	realEnv(t)
	bin := onPath(t)
	closed := "http://" + testnet.ClosedPort(t)
	res, code, errOut := queryJSON(t, "--chroma-url", closed, "--full", "how do I use frob to descend into directories recursively")
	if code != 0 || !res.Degraded || commands(res) != "frob" || !strings.Contains(errOut, "warning:") {
		t.Fatalf("exit %d %+v\n%s", code, res, errOut)
	}
	for _, w := range []string{"Chroma unavailable", "no keyword index on disk", "read live from the man page", "frob.1"} {
		if !strings.Contains(res.DegradedReason, w) {
			t.Errorf("reason %q lacks %q", res.DegradedReason, w)
		}
	}
	if m := res.Commands[0].Matches; len(m) == 0 || m[0].Option != "--recursive" {
		t.Errorf("frob's matches %+v: want --recursive first", m)
	}
	// a --help-only command is not run: exit 4, saying what the user runs
	code, out, errOut := runCLI(t, "index", "query", "--distro", "debian-12", "--chroma-url", closed, "helpy: be quiet")
	if code != cmdutil.ExitUnreachable || out != "" || !strings.Contains(errOut, "no man page installed for helpy") || !strings.Contains(errOut, helpHint) {
		t.Errorf("helpy: exit %d\n%s\nstderr %s; want exit 4 and %q", code, out, errOut, helpHint)
	}
	if _, err := os.Stat(helpyRan(bin)); err == nil {
		t.Error("a degraded query ran helpy")
	}
	if _, code, errOut := queryJSON(t, "--chroma-url", closed, "--strict", "how do I use frob"); code != cmdutil.ExitUnreachable {
		t.Errorf("--strict: exit %d %s, want %d", code, errOut, cmdutil.ExitUnreachable)
	}
	if _, code, errOut := queryJSON(t, "--chroma-url", closed, "twiddle the bits of a file"); code != cmdutil.ExitUnreachable || !strings.Contains(errOut, "no answer from disk either") {
		t.Errorf("no command named: exit %d %s, want %d", code, errOut, cmdutil.ExitUnreachable)
	}
}

// TestQueryMatchesPerCommand: an answer shows the options and examples
// the option ranker chose for each command, else its best 2 matches,
// their text cut to about 200 bytes, unless --matches asks for more or
// --full for every match whole; the commands and the first matches are
// the same either way.
func TestQueryMatchesPerCommand(t *testing.T) {
	realEnv(t)
	frobIndex(t)
	const request = "frobnicate files recursively and verbosely"
	for _, mode := range []string{"semantic", "hybrid"} {
		short, code, errOut := queryJSON(t, "--mode", mode, "-k", "3", request)
		if code != 0 {
			t.Fatalf("--mode %s: exit %d %s", mode, code, errOut)
		}
		long, code, errOut := queryJSON(t, "--mode", mode, "-k", "3", "--full", request)
		if code != 0 {
			t.Fatalf("--mode %s --full: exit %d %s", mode, code, errOut)
		}
		if commands(short) != commands(long) || len(long.Commands) == 0 {
			t.Fatalf("--mode %s: commands %q, with --matches 100 %q; want the same", mode, commands(short), commands(long))
		}
		trimmed := false
		for i, c := range short.Commands {
			l := long.Commands[i]
			want := min(shown.DefaultMatches, len(l.Matches))
			if c.Chosen > 0 { // the options that do what was asked (a small answer: all fit)
				want = c.Chosen
			}
			if len(c.Matches) != want || want > len(l.Matches) {
				t.Errorf("--mode %s: %s shows %d matches of %d (chosen %d), want the chosen ones, else min(%d, all)", mode, c.Command, len(c.Matches), len(l.Matches), c.Chosen, shown.DefaultMatches)
				continue
			}
			for j, m := range c.Matches {
				full := l.Matches[j]
				// a compact answer's option is its label and text, without
				// the "frob(1) option" heading, id or section --full gives
				label, body := manparse.SplitChunk(string(m.Kind), m.Text)
				fullLabel, fullBody := manparse.SplitChunk(string(full.Kind), full.Text)
				if m.Kind != full.Kind || m.Option != full.Option || label != fullLabel {
					t.Errorf("--mode %s: %s's match %d is %s %s %q, want %s %s %q (the best first)", mode, c.Command, j, m.Kind, m.Option, label, full.Kind, full.Option, fullLabel)
				}
				if lean := m.Kind == index.KindOption || m.Kind == index.KindExample; lean != (m.ID == "" && m.Section == "" && m.Score == 0) || full.ID == "" {
					t.Errorf("--mode %s: %s's match %d has id %q, section %q, score %v (--full: id %q): want none for an option or example, else all", mode, c.Command, j, m.ID, m.Section, m.Score, full.ID)
				}
				if m.Kind == index.KindOption && strings.Contains(strings.SplitN(m.Text, "\n", 2)[0], " option ") {
					t.Errorf("--mode %s: %s's option %q kept its heading", mode, c.Command, m.Text)
				}
				cut := strings.TrimSuffix(body, " …")
				if full.Truncated || m.Truncated != (body != fullBody) || !strings.HasPrefix(fullBody, cut) || len(cut) > shown.DefaultMatchText {
					t.Errorf("--mode %s: %s's match %s: text %q (truncated %v), --full %q: want at most %d bytes of its start", mode, c.Command, full.ID, m.Text, m.Truncated, full.Text, shown.DefaultMatchText)
				}
			}
			trimmed = trimmed || len(l.Matches) > shown.DefaultMatches
		}
		if !trimmed {
			t.Errorf("--mode %s: no command has more than %d matches in %+v: the test shows nothing", mode, shown.DefaultMatches, long)
		}
	}
	one, code, _ := queryJSON(t, "--matches", "1", request)
	if code != 0 || len(one.Commands) == 0 || len(one.Commands[0].Matches) != 1 {
		t.Errorf("--matches 1: exit %d %+v", code, one)
	}
	for _, bad := range [][]string{{"--matches", "0"}, {"--full", "--matches", "2"}} {
		if code, _, errOut := runCLI(t, append(append([]string{"index", "query"}, bad...), request)...); code != cmdutil.ExitUsage || !strings.Contains(errOut, "--matches") {
			t.Errorf("%v: exit %d %s, want a usage error", bad, code, errOut)
		}
	}
}

func commands(r querycmd.QueryResult) string {
	var names []string
	for _, c := range r.Commands {
		names = append(names, c.Command)
	}
	return strings.Join(names, " ")
}
