package explaincmd

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/internal/termstyle"
)

// Widths of the terminal layout: a word, its verdict, then what the
// index says of it, cut so that a line fits about 100 columns.
const (
	wordWidth    = 14
	verdictWidth = 15
	helpRunes    = 64
)

// Text is the terminal layout of a result: per command, a header with
// its summary, then one line per word (a cluster of short options, one
// line per flag under it), then a tally. Texts from pages are printed
// on one line each; the app's writer removes control and escape
// sequences from everything printed.
func Text(r explain.Result) string { return Styled(r, termstyle.Style{}) }

// Styled is Text painted by st (a terminal's colours, see
// termstyle): each command bold, a documented option's word in the
// option colour, what the index says of it dim. Every text is cleaned
// by st, so it may be printed past the app's cleaning writer.
func Styled(r explain.Result, st termstyle.Style) string {
	var b strings.Builder
	for i, c := range r.Commands {
		if i > 0 {
			b.WriteByte('\n')
		}
		name, rest, _ := strings.Cut(header(c), oneLine(c.Name, 0))
		b.WriteString(st.Plain(name) + st.Name(oneLine(c.Name, 0)) + st.Plain(rest))
		b.WriteByte('\n')
		for _, w := range c.Words {
			writeWord(&b, st, w, "  ")
			for _, f := range w.Flags {
				writeWord(&b, st, f, "    ")
			}
		}
	}
	if len(r.Commands) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(tally(r))
	b.WriteByte('\n')
	return b.String()
}

// header is a command's first line: its name, what runs it, its page
// and summary, or its verdict when the index does not know it.
func header(c explain.Command) string {
	h := oneLine(c.Name, 0)
	if len(c.Via) > 0 {
		h += " (via " + strings.Join(c.Via, ", ") + ")"
	}
	switch {
	case c.Verdict != judge.Known:
		h += ": " + strings.ToUpper(string(c.Verdict))
	case c.Page != "" && c.Summary != "":
		h += ": " + c.Page + ", " + oneLine(c.Summary, 2*helpRunes)
	case c.Page != "":
		h += ": " + c.Page
	}
	if c.Note != "" {
		h += " (" + oneLine(c.Note, 2*helpRunes) + ")"
	}
	return h
}

func writeWord(b *strings.Builder, st termstyle.Style, w judge.Word, indent string) {
	// the verdicts in one column, a cluster's flags indented under it
	word := oneLine(w.Text, wordWidth)
	paint := st.Plain
	if w.Verdict == judge.Known && strings.HasPrefix(word, "-") {
		paint = st.Option
	}
	line := indent + paint(word) + strings.Repeat(" ", max(wordWidth+2-len(indent)-utf8.RuneCountInString(word), 0)) + " "
	if d := detail(w); d != "" {
		line += pad(string(w.Verdict), verdictWidth) + " " + st.Dim(d)
	} else {
		line += string(w.Verdict)
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}

// detail is what the index says of a word: a documented option's
// spellings and text, else why the verdict.
func detail(w judge.Word) string {
	var parts []string
	spellings, text := optionText(w.Help)
	switch {
	case spellings != "":
		parts = append(parts, oneLine(spellings, wordWidth+verdictWidth)+":")
	case w.Option != "" && w.Option != w.Text:
		parts = append(parts, w.Option)
	}
	if text != "" {
		parts = append(parts, oneLine(text, helpRunes))
	}
	if w.Note != "" {
		parts = append(parts, "("+oneLine(w.Note, helpRunes)+")")
	} else if w.Of != "" {
		parts = append(parts, "(a value of "+w.Of+")")
	}
	return strings.Join(parts, " ")
}

// optionText splits an option record's text into its heading's
// spellings ("-x, --extract, --get" of "tar(1) option -x, --extract,
// --get") and its description; a text without that heading is all
// description.
func optionText(help string) (spellings, text string) {
	head, rest, _ := strings.Cut(help, "\n")
	if _, sp, ok := strings.Cut(head, ") option "); ok {
		return sp, rest
	}
	return "", help
}

// tally is the last line: whether the line checks, and what does not.
func tally(r explain.Result) string {
	if r.OK {
		return "ok: no unknown option, no command missing"
	}
	var parts []string
	if n := r.UnknownCount; n > 0 {
		parts = append(parts, plural(n, "unknown option", "unknown options"))
	}
	if n := r.NotInstalledCount; n > 0 {
		parts = append(parts, plural(n, "command not installed", "commands not installed"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// oneLine is s with its whitespace runs (newlines of a page's text, of a
// quoted argument) as one space, cut to max runes with "..." (0: whole).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = strings.TrimRight(string(r[:max-3]), " ") + "..."
	}
	return s
}

// pad fills s with spaces to width runes.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
