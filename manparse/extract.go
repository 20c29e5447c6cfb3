package manparse

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
		// consumed marks the blocks an entry took as its description; a
		// nested entry among them is left for its own turn
		consumed := make([]bool, len(s.Blocks))
		for i := 0; i < len(s.Blocks); i++ {
			if consumed[i] {
				continue
			}
			blk := &s.Blocks[i]
			if blk.Literal && !blk.Cont {
				// a usage text in a display: "-v, --verbose   Print ..."
				// lines as --help prints them (prove, pyenv)
				if opts, rest, ok := helpBlockOptions(blk.Text, s.Title, p.Names); ok {
					p.Options = append(p.Options, opts...)
					blk.option, blk.leftover = true, rest
					continue
				}
			}
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
				if nestedEntry(s, j, flags) {
					// an option's own tagged entry inside another's body
					// (as's "-a" lists "-ac", "-ad", ...; ss leaves an .RS
					// open after --tipcinfo, so every option after it is
					// nested): an entry of its own, with its body
					j = skipEntryBody(s, j)
					continue
				}
				consumed[j] = true
				nb.option = true
				desc = append(desc, nb.String())
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

// nestedEntry reports a block inside the body of the entry whose flags
// are parent that is an option entry of its own: a tagged block whose
// tag is an option's (as's "-a" lists "-ac", "-ad", ...; ss leaves an .RS
// open after --tipcinfo, so every option after it is nested), or
// DocBook's untagged flag line with its body indented below (git-log's
// "--diff-merges=on, -m" under "--diff-merges=<format>"). A tag that
// shows the parent's flag with a value (curl's "--proto -all,https"
// under --proto, swapon's "--discard=pages" under --discard), a command
// line ("-o foo.exe -Map=bar") or a value that starts with a dash
// (ssh-keygen's "-4w:+4w" validity interval) stays in the parent's
// description.
func nestedEntry(s *Section, j int, parent []string) bool {
	b := &s.Blocks[j]
	if b.Cont || b.Literal {
		return false
	}
	tag := b.Tag
	if tag == "" {
		t, body, prose, ok := entryTag(s, j)
		if !ok || body != "" || prose != "" || j+1 >= len(s.Blocks) || s.Blocks[j+1].Depth <= b.Depth {
			return false
		}
		tag = t
	}
	flags, arg := parseFlags(tag)
	if len(flags) == 0 || proseArg(arg) {
		return false
	}
	for _, w := range strings.Fields(arg) {
		if w[0] == '-' || w[0] == '+' {
			return false
		}
	}
	for _, f := range flags {
		if body := strings.TrimLeft(f, "-+"); len(body) > 1 && body[0] >= '0' && body[0] <= '9' {
			return false
		}
	}
	own := true
	for _, f := range flags {
		own = own && slices.Contains(parent, f)
	}
	if own && arg != "" {
		// the parent's own spelling with a value: swapon's
		// "--discard=pages" under "-d, --discard[=policy]"
		return false
	}
	if slices.Contains(parent, flags[0]) && len(strings.Fields(splitTag(enDashFlags(strings.TrimSpace(tag)))[0])) > 1 {
		return false
	}
	return true
}

// skipEntryBody returns the index of the last block of the entry at j:
// the blocks deeper than it, and those continuing it at its depth.
func skipEntryBody(s *Section, j int) int {
	d := s.Blocks[j].Depth
	for j+1 < len(s.Blocks) {
		nb := &s.Blocks[j+1]
		if nb.Depth > d || (nb.Cont && nb.Depth == d) {
			j++
			continue
		}
		break
	}
	return j
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
		if len(flags) > 0 && !strings.Contains(last, "\n") && tagLength(last) && !proseArg(arg) {
			return last, "", blk.Text[:k], true
		}
	}
	// an untagged paragraph whose first line is a flag line (".B \-a"
	// ".br" "text"), or which is one flag line with an indented body
	// below (DocBook: ".PP" "--details" ".RS 4")
	first, rest, multi := strings.Cut(blk.Text, "\n")
	if !multi && !bodyBelow {
		// help2man's hanging paragraph, flag and text on one line: ".HP"
		// "\fB--color\fR      \- Use colors in output" (LLVM's tools)
		if tag, desc, ok := strings.Cut(first, " - "); ok && desc != "" {
			if flags, arg := parseFlags(tag); len(flags) > 0 && !proseArg(arg) && len(tag) <= 80 {
				return tag, desc, "", true
			}
		}
		return "", "", "", false
	}
	if !tagLength(first) {
		return "", "", "", false
	}
	if flags, _ := parseFlags(first); len(flags) > 0 {
		first, rest = moreTagLines(first, rest)
	}
	return first, rest, "", true
}

// tagLength reports a line short enough to be an untagged entry's tag:
// 80 bytes, or any length when it is all spellings ("--root-password=PW,
// --root-password-file=PATH, --root-password-hashed=HASH": DocBook puts
// an entry's spellings on one line however many there are).
func tagLength(line string) bool {
	if len(line) <= 80 {
		return true
	}
	if len(line) > 400 {
		return false
	}
	for _, part := range splitTag(line) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part[0] != '-' && part[0] != '+' {
			return false
		}
		if _, arg := parseFlags(part); proseArg(arg) || strings.Contains(arg, ". ") {
			return false
		}
	}
	return true
}

// proseArg reports an argument text too long for a tag: more than three
// words outside brackets (valgrind's "<number> [default: 2, stderr]" is
// one, git-quiltimport's "Author Name <Author Email>" two), so the line
// is prose that starts with a flag.
func proseArg(arg string) bool {
	words, depth := 0, 0
	inWord := false
	for _, c := range arg {
		switch {
		case c == '[' || c == '(' || c == '<' || c == '{':
			depth++
		case (c == ']' || c == ')' || c == '>' || c == '}') && depth > 0:
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
		if len(flags) == 0 || !tagLength(line) || proseArg(arg) {
			break
		}
		tag, body = tag+", "+line, rest
	}
	return tag, body
}

// parseFlags reads an option tag such as "-e PATTERNS, --regexp=PATTERNS"
// or "--color[=WHEN]". It returns no flags when the tag is not an option.
func parseFlags(tag string) ([]string, string) {
	// AsciiDoc's "-k::" definition-list markup, left in a display
	tag = strings.TrimRight(enDashFlags(strings.TrimSpace(tag)), ":")
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

// enDashFlags reads an en dash before a word as the "--" it was before
// docutils' smart quotes joined the two (rst2man pages: LLVM's
// "\fB–version\fP").
func enDashFlags(tag string) string {
	if !strings.Contains(tag, "–") {
		return tag
	}
	var b strings.Builder
	for i := 0; i < len(tag); {
		if strings.HasPrefix(tag[i:], "–") {
			next := i + len("–")
			atStart := i == 0 || strings.ContainsRune(" ,|[", rune(tag[i-1]))
			if atStart && next < len(tag) && isAlnum(tag[next]) {
				b.WriteString("--")
				i = next
				continue
			}
		}
		b.WriteByte(tag[i])
		i++
	}
	return b.String()
}

func allFlags(words []string) bool {
	for _, w := range words {
		if !validFlag(w) {
			return false
		}
	}
	return true
}

// splitTag splits a tag on ", ", " | ", " or " and "; -" outside
// brackets.
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
		case ';':
			// last's "-number; -n, --limit number"
			if depth == 0 && strings.HasPrefix(strings.TrimLeft(tag[i+1:], " "), "-") {
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
	if len(f) > 3 && strings.HasPrefix(f, "+{") && strings.HasSuffix(f, "}") {
		return true // ex's "+{command}": "+" and a command, not a spelling
	}
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

// extractExamples pairs each command with the prose that introduces it
// and the notes that follow it. A command is a literal block, a tagged
// entry's tag when it is a command line, or a paragraph of one command
// line: alone (".B ls -a"), or with its description indented below it
// (DocBook: ".PP" "ip addr" ".RS 4" "Shows addresses ..." ".RE"). A list
// item (".IP \(bu", "1.") starts an example: its text introduces the
// command after it (find's "• Search for files ..." then the display).
// Prose after a command and before the next example's own introduction
// (the last paragraph before the next command) is a note of that command.
func extractExamples(p *Page) {
	names := commandNames(p)
	for si := range p.Sections {
		s := &p.Sections[si]
		if !exampleSection(s.Title) {
			continue
		}
		x := exampleCollector{p: p, last: -1}
		sub := ""
		for i := 0; i < len(s.Blocks); i++ {
			blk := s.Blocks[i]
			if blk.Subsection != sub {
				x.boundary()
				sub = blk.Subsection
			}
			switch {
			case blk.Tag != "" && markerTag(blk.Tag) && commandParagraph(Block{Text: blk.Text}, names):
				// a command line as a bullet, below the step that
				// introduces it (jmod's "2. ... run the following
				// commands:" "• jmod create ..."): the step's command
				if len(x.prose) > 0 && blk.Depth > x.proseDepth {
					x.command(blk.Text, blk.Depth)
				} else {
					x.boundary()
					x.add(Example{Command: blk.Text}, blk.Depth)
				}
			case blk.Tag != "" && markerTag(blk.Tag):
				x.boundary()
				x.item = true
				if blk.Text != "" {
					x.prose, x.proseDepth = append(x.prose, blk.Text), blk.Depth
				}
			case blk.Tag != "" && labelTag(blk.Tag):
				// "Example 2", "To list the files:": a heading whose
				// command comes after it
				x.boundary()
				x.item = true
				x.prose, x.proseDepth = append(x.prose, strings.TrimSpace(blk.Tag+"\n"+blk.Text)), blk.Depth
			case blk.Tag != "":
				x.boundary()
				x.add(Example{Command: blk.Tag, Description: blk.Text}, blk.Depth)
			case blk.Literal && x.last >= 0 && len(x.prose) == 0 && blk.Depth > x.lastDepth:
				// a display set below the command it follows: its output
				x.note(blk.Text)
			case blk.Literal && introducesPrompt(s, i, names):
				// a short sentence set as a display, the prompt's line
				// after it (perf's "then generate timechart:")
				x.text(blk)
			case blk.Literal && literalProse(blk.Text):
				// a sentence set as a display (perf's "then generate
				// timechart:", rpcgen's "The following example:")
				x.text(blk)
			case blk.Literal:
				x.command(blk.Text, blk.Depth)
			case termLine(blk.Text, names) && describedBelow(s, i) > i:
				// DocBook's list of commands, each with its description
				// indented below (".PP" "ip addr" ".RS 4" "Shows ..."
				// ".RE"); the command may end a paragraph of prose
				// (flock's "Note that ..." ".sp" "shell1> flock /tmp ...")
				j := describedBelow(s, i)
				x.boundary()
				prose, cmd := "", blk.Text
				if k := strings.LastIndex(cmd, "\n\n"); k >= 0 {
					prose, cmd = cmd[:k], cmd[k+2:]
				}
				var desc []string
				for k := i + 1; k <= j; k++ {
					desc = append(desc, s.Blocks[k].String())
				}
				if prose != "" {
					x.p.Examples = append(x.p.Examples, Example{Description: prose})
				}
				x.add(Example{Command: cmd, Description: strings.Join(desc, "\n\n")}, blk.Depth)
				i = j
			case commandParagraph(blk, names):
				x.command(blk.Text, blk.Depth)
			case len(x.prose) > 0 && blk.Depth > x.proseDepth && oneLineCommand(blk.Text):
				// "To build a module, use" then, indented below, the
				// command line (python3-config: "gcc $(python-config ...)")
				x.command(blk.Text, blk.Depth)
			default:
				x.text(blk)
			}
		}
		x.boundary()
	}
}

// exampleCollector groups one section's blocks into examples.
type exampleCollector struct {
	p *Page
	// prose waits for its command; proseDepth is the depth of its last
	// paragraph
	prose      []string
	proseDepth int
	// item says the prose belongs to a list item or a heading: all of it
	// introduces the next command
	item bool
	// last is the index in p.Examples of the last example with a command
	// in this part of the section, whose notes follow it, -1 for none;
	// lastDepth is the depth of its command
	last, lastDepth int
}

func (x *exampleCollector) add(e Example, depth int) {
	x.p.Examples = append(x.p.Examples, e)
	x.last, x.lastDepth = len(x.p.Examples)-1, depth
	x.prose, x.item = nil, false
}

// command pairs a command with the prose before it.
func (x *exampleCollector) command(cmd string, depth int) {
	x.add(Example{Description: strings.Join(x.prose, "\n\n"), Command: cmd}, depth)
}

// note adds text to the notes of the last command.
func (x *exampleCollector) note(text string) {
	e := &x.p.Examples[x.last]
	if e.Notes != "" {
		text = e.Notes + "\n\n" + text
	}
	e.Notes = text
}

// text takes a paragraph of prose: a new paragraph after others (not a
// continuation of theirs) leaves them as notes of the last command, or
// as an example of their own when there is none.
func (x *exampleCollector) text(blk Block) {
	if !x.item && len(x.prose) > 0 && !blk.Cont {
		x.flush()
	}
	x.prose, x.proseDepth = append(x.prose, blk.Text), blk.Depth
}

// flush gives the waiting prose to the last command as notes, or makes
// it an example of its own.
func (x *exampleCollector) flush() {
	if len(x.prose) == 0 {
		return
	}
	text := strings.Join(x.prose, "\n\n")
	x.prose, x.item = nil, false
	if x.last < 0 {
		x.p.Examples = append(x.p.Examples, Example{Description: text})
		return
	}
	x.note(text)
}

// boundary ends a part of the section (a subsection, a list item, a
// tagged entry): waiting prose is flushed and no later prose is a note
// of the commands before.
func (x *exampleCollector) boundary() {
	x.flush()
	x.last = -1
}

// commandNames are the words a command line of the page starts with: its
// names, and the command a subcommand's page belongs to ("git" for
// git-log, "ip" for ip-link).
func commandNames(p *Page) []string {
	var out []string
	for _, n := range append([]string{p.Name}, p.Names...) {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		out = append(out, n)
		if base, _, ok := strings.Cut(n, "-"); ok && base != "" {
			out = append(out, base)
		}
	}
	return out
}

// markerTag reports a list item's mark: a bullet, a dash, a number.
func markerTag(tag string) bool {
	t := strings.TrimSpace(tag)
	switch t {
	case "•", "·", "◦", "‣", "∙", "*", "-", "−", "–", "—", "o", "+":
		return true
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "("), ")")
	t = strings.TrimSuffix(t, ".")
	if t == "" || len(t) > 3 {
		return false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return len(t) == 1 && c >= 'a' && c <= 'z'
		}
	}
	return true
}

// labelTag reports a tag that heads an example rather than being its
// command: "Example 2", "Example: ...", or prose ending in ":".
func labelTag(tag string) bool {
	t := strings.TrimSpace(tag)
	if l := strings.ToLower(t); strings.HasPrefix(l, "example") && (len(l) == 7 || strings.ContainsRune(" :0123456789", rune(l[7]))) {
		return true
	}
	return strings.HasSuffix(t, ":") && len(strings.Fields(t)) >= 3 && !strings.ContainsAny(t, "|<>$")
}

// commandParagraph reports a filled paragraph of one line that is a
// command line: it starts with a prompt ("$ ", "# ") or with the page's
// command (after sudo or env), and is not a sentence.
func commandParagraph(blk Block, names []string) bool {
	t := strings.TrimSpace(blk.Text)
	if t == "" || len(t) > 300 || blk.Cont {
		return false
	}
	if len(t) > 2 && (t[0] == '$' || t[0] == '#' || t[0] == '%') && t[1] == ' ' {
		// a prompt, then the command; lines broken below it (".br") are
		// its output (validlocale's "% validlocale C" "locale 'C' valid")
		return true
	}
	if strings.Contains(t, "\n") {
		return false
	}
	f := strings.Fields(t)
	for len(f) > 1 && (f[0] == "sudo" || f[0] == "env" || strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-")) {
		f = f[1:]
	}
	first := strings.ToLower(f[0])
	if k := strings.LastIndexByte(first, '/'); k >= 0 {
		first = first[k+1:]
	}
	known := false
	for _, n := range names {
		known = known || first == n
	}
	if !known {
		return false
	}
	return !sentence(t)
}

// sentence reports a line of prose: "ls lists the files." has a period
// or colon at the end, several words, and no flag or shell syntax.
func sentence(t string) bool {
	return (strings.HasSuffix(t, ".") || strings.HasSuffix(t, ":")) && len(strings.Fields(t)) > 3 &&
		!strings.ContainsAny(t, "|<>;'\"$") && !strings.Contains(t, " -")
}

// termLine reports the last paragraph of a block (its only one, or the
// one after a blank line) when it may be a command with its description
// below: a command line of the page, or any one line that is neither a
// sentence nor a heading ("Example 1. ...", "To list files:").
func termLine(text string, names []string) bool {
	if k := strings.LastIndex(text, "\n\n"); k >= 0 {
		text = text[k+2:]
	}
	if commandParagraph(Block{Text: text}, names) {
		return true
	}
	t := strings.TrimSpace(text)
	return oneLineCommand(t) && !strings.HasSuffix(t, ":") && !labelTag(t)
}

// literalProse reports a display that holds a sentence, not a command:
// it ends in "." or ":", reads as prose, and has no prompt.
func literalProse(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || strings.ContainsAny(t[:1], "$#%") {
		return false
	}
	joined := strings.Join(strings.Fields(t), " ")
	return sentence(joined)
}

// introducesPrompt reports a display ending in ":" that does not start
// with a command of the page, followed by a display that starts with a
// prompt ("$ "): the words that introduce that command, however short
// or broken ("then generate timechart:", rpcgen's "To send the test
// version of the\n-DTEST,\n... use:").
func introducesPrompt(s *Section, i int, names []string) bool {
	t := strings.TrimSpace(s.Blocks[i].Text)
	if t == "" || !strings.HasSuffix(t, ":") || strings.ContainsAny(t[:1], "$#%") || i+1 >= len(s.Blocks) {
		return false
	}
	first := strings.ToLower(strings.Fields(t)[0])
	if slices.Contains(names, first) || len(strings.Fields(t)) < 2 {
		return false
	}
	next := s.Blocks[i+1]
	n := strings.TrimSpace(next.Text)
	return next.Literal && len(n) > 2 && strings.ContainsAny(n[:1], "$#%") && n[1] == ' '
}

// oneLineCommand reports a line that may be a command set below the
// prose introducing it: one line, not a sentence.
func oneLineCommand(t string) bool {
	t = strings.TrimSpace(t)
	return t != "" && !strings.Contains(t, "\n") && len(t) <= 300 && !sentence(t) && !strings.HasSuffix(t, ".") && !proseLine(t)
}

// proseLine reports a line of words that starts a sentence without
// ending it ("To build a module against the library, use"): a capital,
// four words or more, no flag and no shell syntax.
func proseLine(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r) && len(strings.Fields(t)) >= 4 && !strings.ContainsAny(t, "|<>$;`'\"=") && !strings.Contains(t, " -")
}

// describedBelow returns the index of the last block of the description
// indented below the command paragraph at i, or i when there is none or
// when it is a display (an introduction's example, not a description).
func describedBelow(s *Section, i int) int {
	d := s.Blocks[i].Depth
	j := i
	for j+1 < len(s.Blocks) && s.Blocks[j+1].Depth > d && s.Blocks[j+1].Subsection == s.Blocks[i].Subsection {
		j++
	}
	if j == i || s.Blocks[i+1].Literal {
		return i
	}
	return j
}
