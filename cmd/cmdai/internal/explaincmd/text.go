package explaincmd

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/internal/termstyle"
)

// Widths of the layout: a word, its verdict, then what the index says
// of it, cut to helpRunes (a line of about 100 columns in a pipe; on a
// terminal, wrapped within its width).
const (
	wordWidth    = 14
	verdictWidth = 15
	helpRunes    = 64
	// minDetail is the fewest columns what the index says of a word is
	// wrapped into beside its verdict; a narrower terminal gets it on
	// the lines below.
	minDetail = 30
)

// Text is the layout of a result for a pipe: per command, a header
// with its summary, then one line per word (a cluster of short options,
// one line per flag under it), then a tally. Texts from pages are printed
// on one line each; the app's writer removes control and escape
// sequences from everything printed.
func Text(r explain.Result) string { return Styled(r, termstyle.Style{}, 0) }

// Styled is Text painted by st (a terminal's colours, see termstyle):
// each command bold, a documented option's word in the option colour,
// what the index says of it dim; within width columns when width > 0
// (a terminal's), each text wrapped under its column with a hanging
// indent, and a word too long for its column given a line of its own,
// never cut. Every text is cleaned by st, so it may be printed past the
// app's cleaning writer.
func Styled(r explain.Result, st termstyle.Style, width int) string {
	var b strings.Builder
	for i, c := range r.Commands {
		if i > 0 {
			b.WriteByte('\n')
		}
		name := oneLine(c.Name, 0)
		for j, l := range wrap(header(c), width, 0, 2) {
			if j == 0 {
				if rest, ok := strings.CutPrefix(l, name); ok {
					l = st.Name(name) + st.Plain(rest)
				} else {
					l = st.Plain(l)
				}
			} else {
				l = "  " + st.Plain(l)
			}
			b.WriteString(l + "\n")
		}
		for _, w := range c.Words {
			writeWord(&b, st, w, "  ", width)
			for _, f := range w.Flags {
				writeWord(&b, st, f, "    ", width)
			}
		}
	}
	if len(r.Commands) > 0 {
		b.WriteByte('\n')
	}
	for _, l := range wrap(tally(r), width, 0, 2) {
		b.WriteString(l + "\n")
	}
	return strings.ReplaceAll(b.String(), "\n  \n", "\n\n")
}

// wrap is termstyle.Wrap of text within width columns, its first line
// starting at column at and the next ones at hang (width 0: one line).
func wrap(text string, width, at, hang int) []string {
	if width <= 0 {
		return []string{oneLine(text, 0)}
	}
	lines := termstyle.Wrap(text, max(width-at, 10), max(width-hang, 10))
	if len(lines) == 0 {
		return []string{""}
	}
	return lines
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

// writeWord writes a word's line: the word, its verdict in one column,
// and what the index says of it. In a pipe (width 0) a word is cut to
// its column so that the verdicts line up; on a terminal the word is
// whole, on a line of its own when its column cannot hold it, and what
// the index says wraps under its own column.
func writeWord(b *strings.Builder, st termstyle.Style, w judge.Word, indent string, width int) {
	verdictAt := wordWidth + 3 // the verdicts' column
	word := oneLine(w.Text, wordWidth)
	if width > 0 {
		word = termstyle.Cut(oneLine(w.Text, 0), max(width-len(indent), 10))
	}
	paint := st.Plain
	if w.Verdict == judge.Known && strings.HasPrefix(word, "-") {
		paint = st.Option
	}
	lead := indent + paint(word)
	used := len(indent) + termstyle.Width(word)
	if width > 0 && used > verdictAt-2 {
		b.WriteString(lead + "\n")
		lead, used = "", 0
	}
	line := lead + strings.Repeat(" ", max(verdictAt-1-used, 0)) + " "
	d := detail(w)
	if d == "" {
		b.WriteString(line + string(w.Verdict) + "\n")
		return
	}
	detailAt := verdictAt + verdictWidth + 1
	if width > 0 && width-detailAt < minDetail {
		// too narrow for a third column: the text under the word
		b.WriteString(line + string(w.Verdict) + "\n")
		line, detailAt = strings.Repeat(" ", len(indent)+4), len(indent)+4
	} else {
		line += pad(string(w.Verdict), verdictWidth) + " "
	}
	for i, l := range wrap(d, width, detailAt, detailAt) {
		if i > 0 {
			line = strings.Repeat(" ", detailAt)
		}
		b.WriteString(strings.TrimRight(line+st.Dim(l), " ") + "\n")
	}
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
