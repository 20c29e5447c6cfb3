// Package manparse turns man page source (man(7) or mdoc(7) roff) and
// --help output into structured pages: NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
// EXAMPLES and the rest, with options split into entries and the text cut
// into chunks sized for the embedder. It is pure: bytes in, Page out.
package manparse

import (
	"regexp"
	"sort"
	"strings"
)

// Page is one parsed manual page.
type Page struct {
	// Name is the command the page documents, from its NAME section (the
	// first name when several are listed), else from the title line.
	Name string `json:"name"`
	// Names lists every name in the NAME section ("gzip, gunzip, zcat").
	Names []string `json:"names,omitempty"`
	// Section is the manual section from the title line ("1", "8", "1ssl").
	Section string `json:"section"`
	// Description is the one-line summary after the dash in NAME.
	Description string `json:"description"`
	// Title, Date, Source and Manual are the title line's fields.
	Title  string `json:"title,omitempty"`
	Date   string `json:"date,omitempty"`
	Source string `json:"source,omitempty"`
	Manual string `json:"manual,omitempty"`
	// Format is "man", "mdoc" or "help".
	Format   string    `json:"format"`
	Sections []Section `json:"sections"`
	Options  []Option  `json:"options,omitempty"`
	Examples []Example `json:"examples,omitempty"`
	// Cut says why only part of the page was read ("": all of it was):
	// Parse stops a page past its limits of time and size.
	Cut string `json:"cut,omitempty"`
}

// Section is one top-level section (.SH / .Sh) with its blocks in order.
type Section struct {
	Title  string  `json:"title"`
	Blocks []Block `json:"blocks"`
}

// Block is a paragraph, a tagged paragraph (.TP, .IP, .It) or a display.
// Keeping the tag apart from the body is what lets options be recognised.
type Block struct {
	// Subsection is the .SS / .Ss heading the block sits under, if any.
	Subsection string `json:"subsection,omitempty"`
	// Depth is the block's indent level (.RS nesting, mdoc list nesting):
	// a deeper block after an option entry belongs to it.
	Depth int    `json:"depth,omitempty"`
	Tag   string `json:"tag,omitempty"`
	Text  string `json:"text"`
	// Cont marks a block that continues the previous tagged item (an
	// indented paragraph inside a .TP body), so an option's description
	// spans all of its paragraphs.
	Cont bool `json:"cont,omitempty"`
	// Literal marks no-fill text (.nf, .EX, .Bd -literal): commands and
	// code whose line breaks matter.
	Literal bool `json:"literal,omitempty"`
	// option is set once the block has been taken as an option entry so
	// that chunking does not embed the same words twice.
	option bool
	// leftover is what chunking embeds of an option block that is only
	// partly entries: the lines of a usage display that are not option
	// lines (its "Usage:" line, its headings).
	leftover string
}

// Option is one command-line option entry.
type Option struct {
	// Flags are the spellings, e.g. ["-r", "--recursive"].
	Flags []string `json:"flags"`
	// Arg is the argument placeholder, e.g. "PATTERNS" or "[=WHEN]".
	Arg         string `json:"arg,omitempty"`
	Description string `json:"description"`
	// Section is the section the entry was found in (OPTIONS, DESCRIPTION).
	Section string `json:"section"`
}

// Example is one example from the EXAMPLES section: a command (literal
// text), the prose that introduces it and the notes that follow it, any
// of which may be empty.
type Example struct {
	Description string `json:"description,omitempty"`
	Command     string `json:"command,omitempty"`
	// Notes is the prose after the command, before the next example
	// ("Note that this will work incorrectly if ...").
	Notes string `json:"notes,omitempty"`
}

// FindSection returns the section titled title (case-insensitive), or nil.
func (p *Page) FindSection(title string) *Section {
	for i := range p.Sections {
		if strings.EqualFold(p.Sections[i].Title, title) {
			return &p.Sections[i]
		}
	}
	return nil
}

// Text renders the section as plain text: subsection headings, tags on
// their own line, bodies indented below them.
func (s *Section) Text() string {
	var b strings.Builder
	sub := ""
	for _, blk := range s.Blocks {
		if blk.Subsection != sub {
			sub = blk.Subsection
			if sub != "" {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(sub)
				b.WriteString("\n")
			}
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(blk.String())
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// String renders one block: its tag, then its body indented.
func (b Block) String() string {
	if b.Tag == "" {
		return b.Text
	}
	if b.Text == "" {
		return b.Tag
	}
	return b.Tag + "\n" + indent(b.Text, "    ")
}

func indent(s, pre string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n")
}

// Text renders the whole page: every section title and its text.
func (p *Page) Text() string {
	var b strings.Builder
	for i := range p.Sections {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.Sections[i].Title)
		b.WriteString("\n")
		b.WriteString(indent(p.Sections[i].Text(), "  "))
	}
	return b.String()
}

// refPattern is a reference to a manual page as rendered text shows it:
// "ls(1)", "systemd.unit(5)", "gzip(1)," in SEE ALSO or in the prose.
var refPattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.+-])([A-Za-z0-9_][A-Za-z0-9_.+-]*)\(([1-9])[a-z]*\)`)

// maxReferences caps what one page can say it refers to: a page listing
// every page of a suite should not outweigh the rest.
const maxReferences = 100

// References lists the pages this page refers to by name ("ls(1)"),
// anywhere in its text, each once, lowercased and sorted, leaving out the
// page's own names. How many pages refer to a command is a prior of how
// central it is: mv is referred to where rename.ul is not.
func (p *Page) References() []string {
	own := map[string]bool{strings.ToLower(p.Name): true}
	for _, n := range p.Names {
		own[strings.ToLower(n)] = true
	}
	seen := map[string]bool{}
	var out []string
	for i := range p.Sections {
		for _, m := range refPattern.FindAllStringSubmatch(p.Sections[i].Text(), -1) {
			n := strings.ToLower(m[1])
			if own[n] || seen[n] || len(out) == maxReferences {
				continue
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// SectionTitles lists the titles of the page's sections in order.
func (p *Page) SectionTitles() []string {
	out := make([]string, len(p.Sections))
	for i, s := range p.Sections {
		out[i] = s.Title
	}
	return out
}

// Invokes reports whether the page's SYNOPSIS shows "parent word": the
// word is the first thing after the parent command that is neither an
// option nor a bracketed group of them, as in "git commit [-a]", "ip [
// OPTIONS ] route { COMMAND | help }" or "openssl req [-help]". It is
// what tells a subcommand's page (git-commit(1)) from a page that only
// shares a prefix (gpg-wks-client(1), a program of its own; tc-netem(8),
// a queueing discipline: "tc qdisc ... add netem").
func (p *Page) Invokes(parent, word string) bool {
	syn := p.FindSection("SYNOPSIS")
	if syn == nil || parent == "" || word == "" {
		return false
	}
	// quotes are typography here ('git credential' (fill|approve))
	toks := strings.Fields(strings.NewReplacer("'", "", "\"", "", "`", "").Replace(syn.Text()))
	for i, t := range toks {
		if t != parent && !strings.HasSuffix(t, "/"+parent) {
			continue
		}
		next, ok := firstOperand(toks[i+1:])
		if !ok {
			continue
		}
		// "dgst|digest" names one subcommand two ways; "ip neigh" is the
		// abbreviation ip(8) accepts for ip-neighbour(8)
		for _, alt := range strings.Split(next, "|") {
			if alt == word || (len(alt) >= 3 && strings.HasPrefix(word, alt)) {
				return true
			}
		}
	}
	return false
}

// firstOperand is the first token that is not an option, a bracketed
// group ([ ... ], { ... }), an alternation bar or an ellipsis, with
// trailing punctuation trimmed.
func firstOperand(toks []string) (string, bool) {
	depth := 0
	for _, t := range toks {
		opens := strings.Count(t, "[") + strings.Count(t, "{")
		closes := strings.Count(t, "]") + strings.Count(t, "}")
		inGroup := depth > 0 || opens > 0
		depth += opens - closes
		if depth < 0 {
			depth = 0
		}
		switch {
		case inGroup, strings.HasPrefix(t, "-"), t == "|", strings.Trim(t, ".") == "":
			continue
		}
		return strings.TrimRight(t, ",;:"), true
	}
	return "", false
}
