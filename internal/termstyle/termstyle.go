// Package termstyle decides whether cmdai colours what it prints, and
// lays text out for a person: colour (bold names, coloured option
// spellings, dim descriptions) on a terminal only, as NO_COLOR
// (https://no-color.org) and --color=never|auto|always say, and lines
// kept within the terminal's width. Every text it paints is cleaned
// first (termtext.Clean): a styled printer writes past the app's
// cleaning writer, so a page's own escape sequences must not ride along.
package termstyle

import (
	"fmt"
	"strings"

	"github.com/rivo/uniseg"

	"github.com/cmdai/cmdai/internal/termtext"
)

// Modes of --color.
const (
	Auto   = "auto"
	Always = "always"
	Never  = "never"
)

// FlagUsage is --color's help text, the same for every command.
const FlagUsage = "colour the output: `WHEN` is auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never"

// CheckMode is nil for a mode --color takes, else a usage message.
func CheckMode(mode string) error {
	switch mode {
	case Auto, Always, Never:
		return nil
	}
	return fmt.Errorf("--color %q: use auto, always or never", mode)
}

// Enabled says whether to colour: always and never say so whatever the
// environment (a flag on the command line wins over NO_COLOR, as
// no-color.org asks); auto colours a terminal unless NO_COLOR is set
// and not empty, or TERM is dumb.
func Enabled(mode string, isTTY bool, getenv func(string) string) bool {
	switch mode {
	case Always:
		return true
	case Never:
		return false
	}
	if getenv == nil {
		return false
	}
	return isTTY && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// Style paints texts when On; every method cleans its text first, so
// its output is safe to print raw either way.
type Style struct {
	On bool
}

// SGR sequences of the palette: nothing that moves the cursor or
// hides text.
const (
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	cyan   = "\x1b[36m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

func (s Style) paint(sgr, text string) string {
	text = termtext.Clean(text)
	if !s.On || text == "" {
		return text
	}
	return sgr + text + reset
}

// Plain is text cleaned, unpainted.
func (s Style) Plain(text string) string { return termtext.Clean(text) }

// Name paints a command's name: bold.
func (s Style) Name(text string) string { return s.paint(bold, text) }

// Option paints an option's spelling: cyan.
func (s Style) Option(text string) string { return s.paint(cyan, text) }

// Example paints an example's command line: green.
func (s Style) Example(text string) string { return s.paint(green, text) }

// Heading paints a heading of a card (SYNOPSIS, OPTIONS): bold yellow.
func (s Style) Heading(text string) string { return s.paint(bold+yellow, text) }

// Dim paints what is said of a thing (descriptions, scores): dim.
func (s Style) Dim(text string) string { return s.paint(dim, text) }

// Width is how many columns a text takes on a terminal: a wide
// character (CJK, most emoji) takes two, a combining mark none
// (uniseg's grapheme clusters and East Asian widths).
func Width(s string) int { return uniseg.StringWidth(s) }

// Wrap cuts text into lines for a terminal: the first line has first
// columns, the next ones rest each. Words are kept whole; a word longer
// than a line is cut with "…". A width of 0 or below (not a terminal)
// keeps the text on one line. Runs of white space become one space.
func Wrap(text string, first, rest int) []string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil
	}
	if first <= 0 && rest <= 0 {
		return []string{strings.Join(words, " ")}
	}
	var lines []string
	cur, room := "", first
	for _, w := range words {
		if room < 1 {
			room = 1
		}
		switch {
		case cur == "" && Width(w) > room:
			lines = append(lines, Cut(w, room))
			room = rest
		case cur == "":
			cur = w
		case Width(cur)+1+Width(w) <= room:
			cur += " " + w
		default:
			lines = append(lines, cur)
			room = rest
			if Width(w) > room {
				lines = append(lines, Cut(w, max(room, 1)))
				cur = ""
				continue
			}
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// Cut keeps text within width columns, ending it with "…" when it is
// longer; a width of 0 or below keeps it whole.
func Cut(text string, width int) string {
	if width <= 0 || Width(text) <= width {
		return text
	}
	// whole grapheme clusters, within width-1 columns, then the "…"
	var b strings.Builder
	cols := 0
	g := uniseg.NewGraphemes(text)
	for g.Next() {
		if cols+g.Width() > width-1 {
			break
		}
		cols += g.Width()
		b.WriteString(g.Str())
	}
	return b.String() + "…"
}
