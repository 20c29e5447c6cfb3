package render

import (
	"strings"
	"unicode"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// Item is one line of an answer a person reads: an option as the page
// spells it with its first sentence, an example's command line with
// what it does, or the first sentence of a piece of prose.
type Item struct {
	Kind index.Kind
	// Label is an option's spelling ("-x, --extract, --get"), an
	// example's command line(s), or "" for prose.
	Label string
	// Text is the first sentence of what the page says of it.
	Text string
	// Section and Score are the match's, shown only when asked (--scores).
	Section string
	Score   float64
}

// Entry is one command of an answer a person reads.
type Entry struct {
	// Name is how a command line starts: "tar", "git commit".
	Name        string
	Description string
	Score       float64
	Items       []Item
}

// sentenceRunes is how long a first sentence may be before it is cut:
// a terminal line or two, never a paragraph.
const sentenceRunes = 240

// Entries are the hits as a person reads them: each command's name and
// description, then each of its matches (in the ranking's order) as an
// Item. The records' texts are read as manparse chunked them: an
// option's heading line is its spelling, an example's last paragraph
// its command line.
func Entries(hits []shown.CommandHit) []Entry {
	out := make([]Entry, 0, len(hits))
	for _, h := range hits {
		e := Entry{Name: h.Invocation(), Description: h.Description, Score: h.Score}
		for _, m := range h.Matches {
			if it, ok := ItemOf(h, m); ok {
				e.Items = append(e.Items, it)
			}
		}
		out = append(out, e)
	}
	return out
}

// ItemOf is one match as a person reads it; false when the match says
// nothing (an empty text).
func ItemOf(h shown.CommandHit, m shown.Match) (Item, bool) {
	it := Item{Kind: m.Kind, Section: m.Section, Score: m.Score}
	label, body := manparse.SplitChunk(string(m.Kind), m.Text)
	switch m.Kind {
	case index.KindOption:
		it.Label = strings.TrimSpace(label)
		if it.Label == "" {
			it.Label = m.Option
		}
		it.Text = sentence(body, m.Truncated)
	case index.KindExample:
		it.Label, it.Text = exampleParts(h.Invocation(), body, m.Truncated)
		it.Text = strings.TrimSuffix(it.Text, ":")
	case index.KindSummary:
		it.Text = sentence(summaryProse(body), m.Truncated)
	default:
		it.Text = sentence(body, m.Truncated)
	}
	return it, it.Label != "" || it.Text != ""
}

// sentence is the first sentence of s on one line; a text cut short
// (truncated) that ends before its first sentence does says so with
// "…".
func sentence(s string, truncated bool) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "…"))
	if s == "" {
		return ""
	}
	first := firstSentence(s, sentenceRunes)
	if truncated && first == strings.Join(strings.Fields(s), " ") && !strings.HasSuffix(first, ".") {
		first += " …"
	}
	return first
}

// summaryProse is a summary record's body from its first sentence on:
// the SYNOPSIS lines before it are how to call the command, not what
// it does.
func summaryProse(body string) string {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if isProse(strings.TrimSpace(l)) {
			return strings.Join(lines[i:], "\n")
		}
	}
	return body
}

// exampleParts cuts an example's body (manparse: its description's
// paragraphs, then its command as the last one) into the command
// line(s) and the description's first sentence. A line that starts
// with the command (or "$ ") is the command wherever it is; else the
// last paragraph is, when it is not prose. An example with no command
// line is its prose alone.
func exampleParts(command, body string, truncated bool) (cmdLine, text string) {
	paras := strings.Split(strings.TrimSpace(body), "\n\n")
	for i, p := range paras {
		var cmds, rest []string
		for _, l := range strings.Split(p, "\n") {
			t := strings.TrimSpace(l)
			if n := len(cmds); n > 0 && strings.HasSuffix(cmds[n-1], "\\") && t != "" {
				cmds[n-1] += "\n" + t // a line continued: find's "find / \" goes on
			} else if strings.HasPrefix(t, "$ ") || t == command || (strings.HasPrefix(t, command+" ") && !isProse(t)) {
				cmds = append(cmds, strings.TrimPrefix(t, "$ "))
			} else if t != "" {
				rest = append(rest, t)
			}
		}
		if len(cmds) > 0 {
			prose := append(append([]string(nil), paras[:i]...), rest...)
			return strings.Join(cmds, "\n"), sentence(strings.Join(prose, " "), false)
		}
	}
	last := strings.TrimSpace(paras[len(paras)-1])
	if len(paras) > 1 && strings.IndexFunc(last, unicode.IsLetter) >= 0 && !isProse(strings.ReplaceAll(last, "\n", " ")) {
		var lines []string
		for _, l := range strings.Split(last, "\n") {
			if t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), "…")); t != "" {
				lines = append(lines, t)
			}
		}
		if truncated && len(lines) > 0 {
			lines[len(lines)-1] += " …"
		}
		return strings.Join(lines, "\n"), sentence(strings.Join(paras[:len(paras)-1], " "), false)
	}
	return "", sentence(body, truncated)
}

// Card is one command's documentation as a person reads it: `cmdai
// show`'s text, from the records command_docs and GET /v1/docs give.
type Card struct {
	// Head names the page: "tar(1)", "git commit: git-commit(1)".
	Head        string
	Description string
	Version     string
	// AliasAsked is the name asked for when it is an alias of the
	// command (gunzip for gzip).
	AliasAsked string
	Synopsis   []string
	// Options come most used first (see CardOf), Examples in page order.
	Options  []Item
	Examples []Item
}

// CardOf is doc as a card. The index keeps no count of how often an
// option is used, so "most used" is read from the page itself: the
// options its own examples use come first, then those with a one-letter
// spelling (the ones a page gives a short form to), then the rest, each
// group in the order the records come (flag order). "Its examples" are
// its EXAMPLES' command lines and its SYNOPSIS lines. A doc narrowed to
// a request (search's ForRequest: Chosen) puts the options and examples
// chosen for it first, in their rank's order.
func CardOf(doc search.CommandDoc) Card {
	c := Card{Head: pageHead(doc.CommandHit), Description: doc.Description, AliasAsked: doc.AliasAsked, Synopsis: synopsisLines(doc)}
	if doc.Version != "" {
		c.Version = versionText(doc.CommandHit)
	}
	seen, chosen, chosenLabel := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, m := range doc.Records[:min(doc.Chosen, len(doc.Records))] {
		chosen[m.ID] = true // narrowed to a request: these first, in its order
	}
	for _, m := range doc.Records {
		switch m.Kind {
		case index.KindOption:
			if m.Option != "" && seen[m.Option] {
				continue
			}
			seen[m.Option] = true
			if it, ok := ItemOf(doc.CommandHit, m); ok {
				c.Options = append(c.Options, it)
				if chosen[m.ID] {
					chosenLabel[it.Label] = true
				}
			}
		case index.KindExample:
			if it, ok := ItemOf(doc.CommandHit, m); ok {
				c.Examples = append(c.Examples, it)
			}
		}
	}
	lines := append([]string(nil), c.Synopsis...)
	for _, ex := range c.Examples {
		lines = append(lines, ex.Label)
	}
	known := map[string]bool{}
	for _, it := range c.Options {
		for _, f := range flagNames(it.Label) {
			known[f] = true
		}
	}
	used := usedFlags(lines, known)
	rank := func(it Item) int {
		if chosenLabel[it.Label] {
			return -1
		}
		flags := flagNames(it.Label)
		for _, f := range flags {
			if used[f] {
				return 0
			}
		}
		for _, f := range flags {
			if len(f) == 2 && f[0] == '-' {
				return 1
			}
		}
		return 2
	}
	stableSortBy(c.Options, rank)
	return c
}

// usedFlags are the flags command lines use: "-name" and "--gzip" as
// written ("[-f" as -f), and each letter of a cluster ("-xzf": -x, -z
// and -f) that is not itself one of the known flags ("-name" of find's).
func usedFlags(lines []string, known map[string]bool) map[string]bool {
	used := map[string]bool{}
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			w = strings.Trim(w, "[]{}()|,")
			if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
				continue
			}
			w, _, _ = strings.Cut(w, "=")
			used[w] = true
			if !strings.HasPrefix(w, "--") && !known[w] {
				for _, r := range w[1:] {
					used["-"+string(r)] = true
				}
			}
		}
	}
	return used
}

// stableSortBy orders items by rank, keeping their order within a rank.
func stableSortBy(items []Item, rank func(Item) int) {
	ranked := make([][]Item, 3)
	for _, it := range items {
		r := min(max(rank(it), 0), 2)
		ranked[r] = append(ranked[r], it)
	}
	items = items[:0]
	for _, group := range ranked {
		items = append(items, group...)
	}
}
