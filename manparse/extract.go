package manparse

import (
	"slices"
	"strings"
)

// finish turns the interpreter's output into a Page: names from NAME,
// option entries, examples.
func (r *roff) finish() *Page {
	if r.tbl != nil {
		r.tbl.endRow(r)
		r.tbl = nil
	}
	p := r.b.finishPage()
	p.Format = r.format
	if p.Format == "" {
		p.Format = "man"
	}
	extractName(p)
	extractOptions(p)
	extractExamples(p)
	return p
}

// nameSeparators split "grep, egrep - print lines" into names and summary.
var nameSeparators = []string{" - ", " — ", " – ", " -- ", " − ", "\t- "}

func extractName(p *Page) {
	s := p.FindSection("NAME")
	if s == nil {
		p.Name = strings.ToLower(p.Title)
		return
	}
	text := strings.Join(strings.Fields(s.Text()), " ")
	names, desc := text, ""
	best := -1
	for _, sep := range nameSeparators {
		if k := strings.Index(text, sep); k >= 0 && (best < 0 || k < best) {
			best = k
			names, desc = text[:k], text[k+len(sep):]
		}
	}
	if best < 0 {
		// "foo -- bar" without blanks, or a bare name list
		if k := strings.Index(text, "\\-"); k > 0 {
			names, desc = text[:k], text[k+2:]
		} else if f := strings.Fields(text); len(f) > 1 && !strings.HasSuffix(f[0], ",") {
			names, desc = f[0], strings.Join(f[1:], " ")
		}
	}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if n != "" {
			p.Names = append(p.Names, n)
		}
	}
	p.Description = strings.TrimSpace(desc)
	if len(p.Names) > 0 {
		p.Name = p.Names[0]
	} else {
		p.Name = strings.ToLower(p.Title)
	}
}

// optionSection reports sections that may hold option entries: everything
// but the ones whose tags are never options.
func optionSection(title string) bool {
	switch title {
	case "NAME", "SYNOPSIS", "SEE ALSO", "EXAMPLES", "EXAMPLE", "AUTHOR", "AUTHORS", "COPYRIGHT", "HISTORY":
		return false
	}
	return true
}

func extractOptions(p *Page) {
	for si := range p.Sections {
		s := &p.Sections[si]
		if !optionSection(s.Title) {
			continue
		}
		for i := 0; i < len(s.Blocks); i++ {
			blk := &s.Blocks[i]
			tag, body, prose, ok := entryTag(s, i)
			if !ok {
				continue
			}
			flags, arg := parseFlags(tag)
			if len(flags) == 0 {
				continue
			}
			if blk.Tag == "" && proseArg(arg) {
				// an untagged line like "-o, --output can be used several
				// times": prose that starts with a flag, not an entry
				continue
			}
			if prose != "" {
				// the entry's tag ended a paragraph of prose, which stays
				// a paragraph of its own
				blk.Text = prose
			} else {
				blk.option = true
			}
			desc := []string{body}
			for j := i + 1; j < len(s.Blocks); j++ {
				nb := &s.Blocks[j]
				if !(nb.Cont || nb.Depth > blk.Depth) {
					break
				}
				nb.option = true
				desc = append(desc, nb.String())
				i = j
			}
			p.Options = append(p.Options, Option{
				Flags:       flags,
				Arg:         arg,
				Description: strings.TrimSpace(strings.Join(desc, "\n\n")),
				Section:     s.Title,
			})
		}
		subsectionOptions(p, s)
	}
}

// subsectionOptions takes the subsections of s whose heading is an
// option's tag (netstat: .SS "\-\-wide, \-W") as entries, their blocks
// the description, unless a block of theirs is an entry already.
func subsectionOptions(p *Page, s *Section) {
	for i := 0; i < len(s.Blocks); {
		j := i
		taken := false
		for j < len(s.Blocks) && s.Blocks[j].Subsection == s.Blocks[i].Subsection {
			taken = taken || s.Blocks[j].option
			j++
		}
		flags, arg := parseFlags(s.Blocks[i].Subsection)
		if len(flags) > 0 && !taken && !proseArg(arg) {
			var desc []string
			for k := i; k < j; k++ {
				s.Blocks[k].option = true
				desc = append(desc, s.Blocks[k].String())
			}
			p.Options = append(p.Options, Option{Flags: flags, Arg: arg, Description: strings.Join(desc, "\n\n"), Section: s.Title})
		}
		i = j
	}
}

// entryTag returns the tag and body of block i if it may be an option
// entry, and the prose before the tag when the tag ends a paragraph.
func entryTag(s *Section, i int) (tag, body, prose string, ok bool) {
	blk := &s.Blocks[i]
	if blk.Tag != "" || blk.Cont || blk.Literal {
		return blk.Tag, blk.Text, "", blk.Tag != ""
	}
	bodyBelow := i+1 < len(s.Blocks) && s.Blocks[i+1].Depth > blk.Depth
	if k := strings.LastIndex(blk.Text, "\n\n"); k >= 0 && bodyBelow {
		// prose, ".sp", then a tag whose body is indented below
		// (util-linux's AsciiDoc: "\fB-J, --json\fP" ".RS 4")
		last := blk.Text[k+2:]
		flags, arg := parseFlags(last)
		if len(flags) > 0 && !strings.Contains(last, "\n") && len(last) <= 80 && !proseArg(arg) {
			return last, "", blk.Text[:k], true
		}
	}
	// an untagged paragraph whose first line is a flag line (".B \-a"
	// ".br" "text"), or which is one flag line with an indented body
	// below (DocBook: ".PP" "--details" ".RS 4")
	first, rest, multi := strings.Cut(blk.Text, "\n")
	if (!multi && !bodyBelow) || len(first) > 80 {
		return "", "", "", false
	}
	if flags, _ := parseFlags(first); len(flags) > 0 {
		first, rest = moreTagLines(first, rest)
	}
	return first, rest, "", true
}

// proseArg reports an argument text too long for a tag: more than three
// words outside brackets (valgrind's "<number> [default: 2, stderr]" is
// one), so the line is prose that starts with a flag.
func proseArg(arg string) bool {
	words, depth := 0, 0
	inWord := false
	for _, c := range arg {
		switch {
		case c == '[' || c == '(':
			depth++
		case (c == ']' || c == ')') && depth > 0:
			depth--
		case depth == 0 && (c == ' ' || c == '\t'):
			inWord = false
		case depth == 0 && !inWord:
			inWord = true
			words++
		}
	}
	return words > 3
}

// moreTagLines joins to an untagged entry's first line the flag lines
// that follow it: DocBook writes one spelling a line (".PP" "-z" ".br"
// "--gzip" ".RS 4"), so "--gzip" is the same option, not its description.
func moreTagLines(tag, body string) (string, string) {
	for body != "" {
		line, rest, _ := strings.Cut(body, "\n")
		flags, arg := parseFlags(line)
		if len(flags) == 0 || len(line) > 80 || proseArg(arg) {
			break
		}
		tag, body = tag+", "+line, rest
	}
	return tag, body
}

// parseFlags reads an option tag such as "-e PATTERNS, --regexp=PATTERNS"
// or "--color[=WHEN]". It returns no flags when the tag is not an option.
func parseFlags(tag string) ([]string, string) {
	tag = strings.TrimSpace(tag)
	if len(tag) < 2 || (tag[0] != '-' && tag[0] != '+') {
		return nil, ""
	}
	var flags []string
	arg := ""
	for _, part := range splitTag(tag) {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if len(f) > 1 && allFlags(f) {
			// "-c --stdout" (bzip2): spellings side by side, no comma
			for _, fl := range f {
				if !slices.Contains(flags, fl) {
					flags = append(flags, fl)
				}
			}
			continue
		}
		flag := f[0]
		rest := strings.Join(f[1:], " ")
		var extra []string
		if validFlag(flag) {
			// "-S .suf --suffix .suf" (gzip): a long spelling after the
			// short one's argument, no comma between
			for k := 1; k < len(f); k++ {
				if strings.HasPrefix(f[k], "--") && validFlag(f[k]) {
					if extra == nil {
						rest = strings.Join(f[1:k], " ")
					}
					extra = append(extra, f[k])
				}
			}
		}
		if k := strings.IndexAny(flag, "=[<"); k > 1 {
			// "--regexp=PATTERNS" names PATTERNS; "--color[=WHEN]" keeps its
			// brackets, which say the argument is optional, as "-D<NAME>"
			// keeps its angles.
			rest = strings.TrimSpace(strings.TrimPrefix(flag[k:], "=") + " " + rest)
			flag = flag[:k]
		}
		if (part == "-" || placeholderFlag(strings.TrimSpace(part))) && len(flags) == 0 {
			// colcrt's "-, --no-underlining": "-" is no spelling; git-log's
			// "-<number>, -n <number>, --max-count=<number>": "-<number>"
			// stands for -1, -5, ..., which are read as numbers
			continue
		}
		if !validFlag(flag) {
			if len(flags) == 0 {
				return nil, ""
			}
			// "-o opt | value": a trailing non-flag part is argument text
			if arg == "" {
				arg = strings.TrimSpace(part)
			}
			continue
		}
		for _, fl := range append([]string{flag}, extra...) {
			if !slices.Contains(flags, fl) {
				// DocBook lists "-Z level" and "-Z method" as two lines of one entry
				flags = append(flags, fl)
			}
		}
		if arg == "" {
			arg = rest
		}
	}
	return flags, arg
}

func allFlags(words []string) bool {
	for _, w := range words {
		if !validFlag(w) {
			return false
		}
	}
	return true
}

// splitTag splits a tag on ", ", " | " and " or " outside brackets.
func splitTag(tag string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(tag); i++ {
		switch tag[i] {
		case '[', '(', '<', '{':
			depth++
		case ']', ')', '>', '}':
			if depth > 0 {
				depth--
			}
		case ',', '|':
			if depth == 0 {
				parts = append(parts, tag[start:i])
				start = i + 1
			}
		case ' ':
			if depth == 0 && strings.HasPrefix(tag[i:], " or -") {
				parts = append(parts, tag[start:i])
				start = i + 4
			}
		}
	}
	return append(parts, tag[start:])
}

// placeholderFlag reports a dash before a placeholder, "-<number>" or
// "-<n>": a family of options (-1, -2, ...) rather than one spelling.
func placeholderFlag(f string) bool {
	return len(f) > 3 && strings.HasPrefix(f, "-<") && strings.HasSuffix(f, ">") && !strings.ContainsAny(f[2:len(f)-1], "<> ")
}

// validFlag accepts -x, --long-name, -long, +x, -?, -1 and rejects prose
// and lone dashes.
func validFlag(f string) bool {
	if len(f) < 2 || (f[0] != '-' && f[0] != '+') {
		return false
	}
	body := strings.TrimLeft(f, "-+")
	if body == "" || len(f)-len(body) > 2 {
		return false
	}
	for i, c := range body {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '?' || c == '#' || c == '@' || c == '%' || c == '!':
		case c == '_' && len(body) == 1: // c++filt's -_
		case i > 0 && (c == '-' || c == '_' || c == '.' || c == ':' || c == '+'): // java's -XX:+Flag
		default:
			return false
		}
	}
	return true
}

// exampleSection reports sections that hold examples.
func exampleSection(title string) bool {
	return strings.Contains(title, "EXAMPLE")
}

// extractExamples pairs each literal block (a command) with the prose just
// before it; a tagged entry whose tag is a command line is an example too.
func extractExamples(p *Page) {
	for si := range p.Sections {
		s := &p.Sections[si]
		if !exampleSection(s.Title) {
			continue
		}
		var prose []string
		for _, blk := range s.Blocks {
			switch {
			case blk.Literal:
				p.Examples = append(p.Examples, Example{Description: strings.Join(prose, "\n\n"), Command: blk.Text})
				prose = nil
			case blk.Tag != "":
				if len(prose) > 0 {
					p.Examples = append(p.Examples, Example{Description: strings.Join(prose, "\n\n")})
					prose = nil
				}
				p.Examples = append(p.Examples, Example{Command: blk.Tag, Description: blk.Text})
			default:
				if len(prose) > 0 && !blk.Cont {
					p.Examples = append(p.Examples, Example{Description: strings.Join(prose, "\n\n")})
					prose = nil
				}
				prose = append(prose, blk.Text)
			}
		}
		if len(prose) > 0 {
			p.Examples = append(p.Examples, Example{Description: strings.Join(prose, "\n\n")})
		}
	}
}
