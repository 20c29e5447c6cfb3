package manparse

import (
	"slices"
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

// helpBlockOptions reads the option lines of a display that holds a
// usage text as --help prints it ("-v,  --verbose   Print all test
// lines.", the description after a gap or on deeper lines below). It
// takes the display only when it starts as a usage text does (an option
// line, a "Usage:" line of this page's command, a heading ending in
// ":"), at least two of its lines are such entries and they are most of
// its lines; rest is what is left of the display (the "Usage:" line,
// group headings), "" when nothing is. names are the page's names: a
// usage text of another command (git-rev-parse shows the one its
// --parseopt makes for "some-command") is not this page's options.
func helpBlockOptions(text, section string, names []string) (opts []Option, rest string, ok bool) {
	lines := strings.Split(text, "\n")
	if !usageStart(lines, names) {
		return nil, "", false
	}
	var left []string
	entries, other := 0, 0
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimRight(lines[i], " \t")
		line := strings.TrimSpace(raw)
		if line == "" {
			left = append(left, "")
			continue
		}
		ind := indentOf(raw)
		tag, desc := splitHelpLine(line)
		flags, arg := helpLineFlags(tag)
		// spellings one a line, the description below the last ("-k::"
		// "--key=<value>::" "    Sorting key.")
		k := i
		for desc == "" && len(flags) > 0 && k+1 < len(lines) && indentOf(lines[k+1]) == ind {
			t, d := splitHelpLine(strings.TrimSpace(lines[k+1]))
			fl, a := helpLineFlags(t)
			if len(fl) == 0 {
				break
			}
			for _, f := range fl {
				if !slices.Contains(flags, f) {
					flags = append(flags, f)
				}
			}
			if arg == "" {
				arg = a
			}
			desc = d
			k++
		}
		if len(flags) == 0 || (desc == "" && !deeperNext(lines, k, ind)) || (desc != "" && !hasWord(desc)) {
			left = append(left, raw)
			other++
			continue
		}
		i = k
		for i+1 < len(lines) {
			next := strings.TrimRight(lines[i+1], " \t")
			nl := strings.TrimSpace(next)
			if nl == "" || indentOf(next) <= ind || nl[0] == '-' {
				break
			}
			desc = strings.TrimSpace(desc + " " + nl)
			i++
		}
		entries++
		opts = append(opts, Option{Flags: flags, Arg: arg, Description: desc, Section: section})
	}
	if entries < 2 || entries < other {
		return nil, "", false
	}
	return opts, strings.TrimSpace(cleanText(strings.Join(left, "\n"), true)), true
}

// usageStart reports a display whose first line may start a usage
// text: an option line, a heading ending in ":", or "Usage:" and one of
// names (or its first part: "git" for git-rev-parse); and whose other
// "Usage:" lines name them too.
func usageStart(lines []string, names []string) bool {
	first := true
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if hasPrefixFold(l, "usage:") {
			f := strings.Fields(l[len("usage:"):])
			if len(f) > 0 && !slices.ContainsFunc(names, func(n string) bool {
				base, _, _ := strings.Cut(n, "-")
				return f[0] == n || f[0] == base || strings.HasSuffix(f[0], "/"+n)
			}) {
				return false
			}
		} else if first && l[0] != '-' && l[0] != '+' && !strings.HasSuffix(l, ":") {
			return false
		}
		first = false
	}
	return true
}

// hasWord reports a description with a word of three letters or more:
// a table's row ("--hard   D  D  D", git-reset's) has none.
func hasWord(s string) bool {
	n := 0
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if n++; n >= 3 {
				return true
			}
			continue
		}
		n = 0
	}
	return false
}

// helpLineFlags reads the tag of a display's line, no flags when it is
// not an option's: prose, a command line ("-o foo.exe -Map=bar": a flag
// in the argument), ls's "-rw-r--r--" or a diff's "-old line".
func helpLineFlags(tag string) ([]string, string) {
	flags, arg := parseFlags(tag)
	if len(flags) == 0 || proseArg(arg) {
		return nil, ""
	}
	for _, w := range strings.Fields(arg) {
		if w[0] == '-' || w[0] == '+' {
			return nil, ""
		}
	}
	for _, f := range flags {
		body := strings.TrimLeft(f, "-+")
		if strings.Contains(body, "--") || (len(f) == 10 && strings.Trim(f, "-rwxsStTdlcbp") == "") {
			return nil, ""
		}
	}
	return flags, arg
}

// splitHelpLine splits a usage text's option line where its description
// starts: at a gap of two blanks or more (or a tab), unless another
// spelling follows the gap (prove's "-D   --dry", "-b,  --blib").
func splitHelpLine(line string) (tag, desc string) {
	tag, rest := splitHelpOption(line)
	for rest != "" {
		if rest[0] != '-' || strings.HasPrefix(rest, "- ") {
			break
		}
		t, r := splitHelpOption(rest)
		tag, rest = tag+" "+t, r
	}
	return tag, rest
}

// deeperNext reports a next line indented deeper than ind: an option
// line's description set below it.
func deeperNext(lines []string, i, ind int) bool {
	if i+1 >= len(lines) {
		return false
	}
	next := strings.TrimRight(lines[i+1], " \t")
	return strings.TrimSpace(next) != "" && indentOf(next) > ind
}
