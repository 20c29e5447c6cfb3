package explaincmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/internal/termstyle"
)

// TestText: a header per command (its page and summary, or its verdict),
// a line per word and per flag of a cluster with the verdicts in one
// column, the option's spellings and text on one line, and the tally.
func TestText(t *testing.T) {
	r := explain.Result{Line: "sudo tar -xf a.tar --zstdx | frob", UnknownCount: 1, NotInstalledCount: 1, Commands: []explain.Command{
		{Name: "tar", Verdict: judge.Known, Page: "tar(1)", Summary: "an archiving\n utility", Via: []string{"sudo"}, Words: []judge.Word{
			{Text: "-xf", Verdict: judge.Known, Flags: []judge.Word{
				{Text: "-x", Verdict: judge.Known, Option: "--extract", Help: "tar(1) option -x, --extract\nExtract files\n  from an archive."},
				{Text: "-f", Verdict: judge.Known, Option: "--file", Help: "Use archive file ARCHIVE."},
			}},
			{Text: "a.tar", Verdict: judge.Operand, Of: "--file"},
			{Text: "--zstdx", Verdict: judge.UnknownOption, Note: "no such option in tar(1)"},
		}},
		{Name: "frob", Verdict: judge.NotInstalled, Note: "not in the index"},
	}}
	want := `tar (via sudo): tar(1), an archiving utility
  -xf            known
    -x           known           -x, --extract: Extract files from an archive.
    -f           known           --file Use archive file ARCHIVE.
  a.tar          operand         (a value of --file)
  --zstdx        unknown option  (no such option in tar(1))

frob: NOT INSTALLED (not in the index)

1 unknown option, 1 command not installed
`
	if got := Text(r); got != want {
		t.Errorf("Text:\n%s\nwant:\n%s", got, want)
	}
	// coloured: the same text once its colours are gone, each command
	// bold, a documented option coloured, what the index says dim
	coloured := Styled(r, termstyle.Style{On: true}, 0)
	if plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(coloured, ""); plain != want {
		t.Errorf("Styled without its colours:\n%s\nwant:\n%s", plain, want)
	}
	for _, painted := range []string{"\x1b[1mtar\x1b[0m (via sudo)", "\x1b[36m-x\x1b[0m", "\x1b[2m(a value of --file)\x1b[0m", "  --zstdx        unknown option"} {
		if !strings.Contains(coloured, painted) {
			t.Errorf("no %q in %q", painted, coloured)
		}
	}
	if got := Text(explain.Result{OK: true}); !strings.HasPrefix(got, "ok: ") {
		t.Errorf("an empty result: %q", got)
	}
	if got := oneLine("a\n b\tc "+strings.Repeat("x", 100), 20); got != "a b c xxxxxxxxxxx..." {
		t.Errorf("oneLine: %q", got)
	}
}

// TestReadLine: "-" reads stdin without its final newline (CRLF too);
// anything else is the line; an empty stdin is left to explain to refuse.
func TestReadLine(t *testing.T) {
	for _, tc := range []struct{ arg, stdin, want string }{
		{"ls -l", "ignored", "ls -l"},
		{"-", "grep -c 'a\nb' f\n", "grep -c 'a\nb' f"},
		{"-", "ls\r\n", "ls"},
		{"-", "", ""},
	} {
		got, err := readLine(tc.arg, strings.NewReader(tc.stdin))
		if err != nil || got != tc.want {
			t.Errorf("readLine(%q, %q) = %q, %v; want %q", tc.arg, tc.stdin, got, err, tc.want)
		}
	}
	if _, err := readLine("-", nil); err == nil {
		t.Error("no stdin: no error")
	}
}

// TestTextFitsTheTerminal (issue 46: lines of 154 columns, wrapped
// mid-word at 80, and the wrong option cut to "--recursive..."): on a
// terminal every line fits its width, measured in columns (a wide
// character takes two), each text wraps under its own column, and the
// word judged is never cut: one too long for its column gets a line of
// its own.
func TestTextFitsTheTerminal(t *testing.T) {
	long := "Recursively descend 漢字漢字漢字漢字漢字 into every directory named on the command line and handle each file found there, following symbolic links only when asked."
	r := explain.Result{Line: "grep --recursive-everything -r x", UnknownCount: 1, Commands: []explain.Command{
		{Name: "grep", Verdict: judge.Known, Page: "grep(1)", Summary: "print lines that match patterns, searching every file given on the command line or read from standard input", Words: []judge.Word{
			{Text: "--recursive-everything", Verdict: judge.UnknownOption, Note: "no such option in grep(1); the nearest is --recursive, which reads all files under each directory"},
			{Text: "-r", Verdict: judge.Known, Option: "--recursive", Help: "grep(1) option -r, --recursive\n" + long},
			{Text: "x", Verdict: judge.Operand},
		}},
	}}
	for _, width := range []int{80, 60, 40} {
		got := Styled(r, termstyle.Style{}, width)
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if termstyle.Width(l) > width {
				t.Errorf("width %d: a line of %d columns: %q\n%s", width, termstyle.Width(l), l, got)
			}
		}
		if !strings.Contains(got, "\n  --recursive-everything\n") {
			t.Errorf("width %d: the unknown option not whole on its own line:\n%s", width, got)
		}
		if !strings.Contains(got, "Recursively") || !strings.Contains(got, "nearest") || !strings.Contains(got, "漢字") {
			t.Errorf("width %d: the option's text lost:\n%s", width, got)
		}
	}
	got := Styled(r, termstyle.Style{}, 80)
	t.Logf("at 80 columns:\n%s", got)
	// a text's next lines under its column: the option's text at 33
	if !regexp.MustCompile(`(?m)^ {33}\S`).MatchString(got) {
		t.Errorf("no line continued under the text's column:\n%s", got)
	}
	// in a pipe: one line per word, as before
	if plain := Text(r); strings.Count(plain, "\n") != 6 {
		t.Errorf("in a pipe:\n%s", plain)
	}
}
