// Package readable prints answers and command cards for a person: each
// command's name and description, its options as the page spells them
// with their first sentence, its examples' command lines; styled and
// laid out by internal/termstyle (colour on a terminal, lines within
// its width), no score unless asked. `index query`, `search` and `show`
// print with it; --json and --context stay as they are.
package readable

import (
	"fmt"
	"io"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/termstyle"
	"github.com/cmdai/cmdai/search/render"
)

// Layout of an answer's text: items are indented under their command's
// name; an option's spelling takes a column of at most labelMax
// columns, its sentence follows; below minText columns left for the
// sentence, it goes on the next line instead.
const (
	indent   = "   "
	labelMax = 26
	minText  = 30
)

// Printer writes answers and cards for a person: styled by St, lines
// within Width columns (0: one line each, for a pipe).
type Printer struct {
	W     io.Writer
	St    termstyle.Style
	Width int
	// Scores adds each command's and match's score, and the section a
	// match comes from (--scores, --verbose).
	Scores bool
}

// Answer writes the entries: per command its name and description,
// then each match on its own line(s), a blank line between commands.
func (p Printer) Answer(entries []render.Entry) {
	for i, e := range entries {
		if i > 0 {
			fmt.Fprintln(p.W)
		}
		num := fmt.Sprintf("%d. ", i+1)
		head := num + p.St.Name(e.Name)
		cols := termstyle.Width(num + e.Name)
		if p.Scores {
			s := fmt.Sprintf("  (%.3f)", e.Score)
			head += p.St.Dim(s)
			cols += termstyle.Width(s)
		}
		p.described(head, cols, e.Description, len(num))
		p.Items(e.Items, indent)
	}
}

// described writes head (cols columns wide) and " - description",
// wrapped under hang columns.
func (p Printer) described(head string, cols int, desc string, hang int) {
	if desc == "" {
		fmt.Fprintln(p.W, head)
		return
	}
	lines := termstyle.Wrap(desc, p.room(cols+3), p.room(hang))
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintln(p.W, head+" - "+p.St.Dim(l))
			continue
		}
		fmt.Fprintln(p.W, strings.Repeat(" ", hang)+p.St.Dim(l))
	}
}

// room is how many columns are left after used ones (0: no limit).
func (p Printer) room(used int) int {
	if p.Width <= 0 {
		return 0
	}
	return max(p.Width-used, 10)
}

// Items writes items under a command, each starting at pad: options
// with their spelling in a column, examples as "$ command" with what
// they do below, prose as its sentence.
func (p Printer) Items(items []render.Item, pad string) {
	col := 0
	for _, it := range items {
		if it.Kind == index.KindOption {
			col = max(col, min(termstyle.Width(it.Label), labelMax))
		}
	}
	for _, it := range items {
		lead, leadCols := pad, len(pad)
		if p.Scores {
			s := fmt.Sprintf("%.3f  %s  ", it.Score, it.Section)
			lead += p.St.Dim(s)
			leadCols += termstyle.Width(s)
		}
		switch {
		case it.Kind == index.KindOption && it.Label != "":
			p.option(lead, leadCols, pad, col, it)
		case it.Kind == index.KindExample && it.Label != "":
			prompt := "$ "
			for i, l := range strings.Split(it.Label, "\n") {
				if i > 0 {
					lead, leadCols = pad, len(pad)
				}
				p.wrapped(lead+prompt, leadCols+2, len(pad)+4, l, p.St.Example)
				// a line continued ("find / \\") goes on under it, not as a command of its own
				prompt = "$ "
				if strings.HasSuffix(l, "\\") {
					prompt = "  "
				}
			}
			p.wrapped(pad+"  ", len(pad)+2, len(pad)+2, it.Text, p.St.Dim)
		default:
			p.wrapped(lead, leadCols, len(pad), it.Text, p.St.Plain)
		}
	}
}

// option writes an option's spelling, padded to col columns, and its
// sentence beside it, or below it when too little room is left.
func (p Printer) option(lead string, leadCols int, pad string, col int, it render.Item) {
	label := it.Label
	gap := max(col-termstyle.Width(label), 0) + 2
	textAt := leadCols + termstyle.Width(label) + gap
	if it.Text == "" {
		fmt.Fprintln(p.W, lead+p.St.Option(termstyle.Cut(label, p.room(leadCols))))
		return
	}
	if termstyle.Width(label) > labelMax || (p.Width > 0 && p.Width-textAt < minText) {
		fmt.Fprintln(p.W, lead+p.St.Option(termstyle.Cut(label, p.room(leadCols))))
		p.wrapped(pad+"    ", len(pad)+4, len(pad)+4, it.Text, p.St.Plain)
		return
	}
	hang := len(pad) + col + 2
	if p.Scores {
		hang = textAt
	}
	lines := termstyle.Wrap(it.Text, p.room(textAt), p.room(hang))
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintln(p.W, lead+p.St.Option(label)+strings.Repeat(" ", gap)+p.St.Plain(l))
			continue
		}
		fmt.Fprintln(p.W, strings.Repeat(" ", hang)+p.St.Plain(l))
	}
}

// wrapped writes text after lead (leadCols wide), its next lines
// indented hang columns, each painted.
func (p Printer) wrapped(lead string, leadCols, hang int, text string, paint func(string) string) {
	for i, l := range termstyle.Wrap(text, p.room(leadCols), p.room(hang)) {
		if i == 0 {
			fmt.Fprintln(p.W, lead+paint(l))
			continue
		}
		fmt.Fprintln(p.W, strings.Repeat(" ", hang)+paint(l))
	}
}

// Card writes one command's card: its page and description, SYNOPSIS,
// up to options of its options and examples of its examples (0: all),
// and a line saying how many were left out and how to see them (more).
func (p Printer) Card(c render.Card, options, examples int, more string) {
	head := p.St.Name(c.Head)
	cols := termstyle.Width(c.Head)
	if c.Version != "" {
		v := " [" + c.Version + "]"
		head += p.St.Dim(v)
		cols += termstyle.Width(v)
	}
	p.described(head, cols, c.Description, 2)
	if c.AliasAsked != "" {
		fmt.Fprintln(p.W, p.St.Dim(c.AliasAsked+" is another name of this command"))
	}
	left := 0
	section := func(title string, items []render.Item, n int) {
		if len(items) == 0 {
			return
		}
		if n > 0 && len(items) > n {
			left += len(items) - n
			items = items[:n]
		}
		fmt.Fprintln(p.W)
		fmt.Fprintln(p.W, p.St.Heading(title))
		p.Items(items, "  ")
	}
	if len(c.Synopsis) > 0 {
		fmt.Fprintln(p.W)
		fmt.Fprintln(p.W, p.St.Heading("SYNOPSIS"))
		for _, l := range c.Synopsis {
			p.wrapped("  ", 2, 6, l, p.St.Plain)
		}
	}
	section("OPTIONS", c.Options, options)
	section("EXAMPLES", c.Examples, examples)
	if left > 0 && more != "" {
		fmt.Fprintln(p.W)
		fmt.Fprintln(p.W, p.St.Dim(fmt.Sprintf("(%d more: %s)", left, more)))
	}
}
