package manparse

import (
	"strings"
	"unicode/utf8"
)

// ParseHelp structures the output of "name --help" for commands without a
// man page. Help text has no markup, so the shape is read from layout:
// "Usage:" lines make the SYNOPSIS, indented lines starting with a dash are
// option entries (description after two or more spaces, or on the more
// indented lines below), everything else is DESCRIPTION prose.
func ParseHelp(name string, out []byte) *Page {
	text := strings.ToValidUTF8(string(out), "\uFFFD")
	text = stripBackspaces(strings.ReplaceAll(text, "\r\n", "\n"))
	p := &Page{Name: name, Names: []string{name}, Format: "help"}

	var synopsis, prose []Block
	var para []string
	flushPara := func() {
		if len(para) > 0 {
			prose = append(prose, Block{Text: strings.Join(para, " ")})
			para = nil
		}
	}
	lines := strings.Split(text, "\n")
	inUsage := false
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimRight(lines[i], " \t")
		line := strings.TrimSpace(raw)
		ind := indentOf(raw)
		switch {
		case line == "":
			flushPara()
			inUsage = false
			continue
		case hasPrefixFold(line, "usage:"):
			flushPara()
			inUsage = true
			if u := strings.TrimSpace(line[len("usage:"):]); u != "" {
				synopsis = append(synopsis, Block{Text: u, Literal: true})
			}
			continue
		case inUsage && (ind > 0 || hasPrefixFold(line, "or:") || strings.HasPrefix(line, name+" ")):
			u := strings.TrimSpace(strings.TrimPrefix(line, "or:"))
			synopsis = append(synopsis, Block{Text: u, Literal: true})
			continue
		}
		inUsage = false
		if ind > 0 && (line[0] == '-' || line[0] == '+') {
			flushPara()
			tag, desc := splitHelpOption(line)
			flags, arg := parseFlags(tag)
			if len(flags) == 0 {
				para = append(para, line)
				continue
			}
			// continuation lines: indented deeper than the option itself
			// and not another option
			for i+1 < len(lines) {
				next := strings.TrimRight(lines[i+1], " \t")
				nl := strings.TrimSpace(next)
				if nl == "" || indentOf(next) <= ind || nl[0] == '-' {
					break
				}
				desc = strings.TrimSpace(desc + " " + nl)
				i++
			}
			p.Options = append(p.Options, Option{Flags: flags, Arg: arg, Description: desc, Section: "OPTIONS"})
			continue
		}
		para = append(para, line)
	}
	flushPara()

	if len(prose) > 0 && p.Description == "" {
		p.Description = firstSentence(prose[0].Text)
	}
	p.Sections = append(p.Sections, Section{Title: "NAME", Blocks: []Block{{Text: name + " - " + p.Description}}})
	if len(synopsis) > 0 {
		p.Sections = append(p.Sections, Section{Title: "SYNOPSIS", Blocks: synopsis})
	}
	if len(prose) > 0 {
		p.Sections = append(p.Sections, Section{Title: "DESCRIPTION", Blocks: prose})
	}
	if len(p.Options) > 0 {
		s := Section{Title: "OPTIONS"}
		for _, o := range p.Options {
			tag := strings.Join(o.Flags, ", ")
			if o.Arg != "" {
				tag += " " + o.Arg
			}
			s.Blocks = append(s.Blocks, Block{Tag: tag, Text: o.Description, option: true})
		}
		p.Sections = append(p.Sections, s)
	}
	return p
}

// splitHelpOption splits "-r, --recursive   like --directories=recurse"
// at the first run of two or more spaces (or a tab) after the flags.
func splitHelpOption(line string) (tag, desc string) {
	for i := 0; i < len(line); i++ {
		if line[i] == '\t' || (line[i] == ' ' && i+1 < len(line) && line[i+1] == ' ') {
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i:])
		}
	}
	return line, ""
}

func indentOf(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func firstSentence(s string) string {
	if k := strings.Index(s, ". "); k > 0 {
		s = s[:k]
	}
	s = strings.TrimSuffix(s, ".")
	if utf8.RuneCountInString(s) > 160 {
		r := []rune(s)
		s = string(r[:160])
	}
	return s
}

// stripBackspaces undoes nroff overstriking ("N\bNA\bAM\bME") that some
// tools print even into pipes.
func stripBackspaces(s string) string {
	if !strings.Contains(s, "\b") {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\b' {
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			continue
		}
		out = append(out, r)
	}
	return string(out)
}
