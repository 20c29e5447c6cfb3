package manparse

import (
	"strings"
)

// builder collects decoded text into sections and blocks. The interpreter
// tells it about structure (a section starts, a tagged paragraph starts, the
// indent deepens); the builder decides which block text belongs to.
type builder struct {
	page    Page
	sec     *Section
	sub     string
	cur     *Block
	body    strings.Builder
	tagText strings.Builder
	nofill  bool

	// pending says where the next line of text goes: a heading (.SH with
	// no argument), a tag (.TP), or more of the tag (.TQ).
	pending pendingKind
	// depth is the indent level: .RS nesting in man, list nesting in mdoc.
	depth int
	// items are the open tagged items with the depth their bodies sit at;
	// a paragraph at that depth or deeper continues the item.
	items []int
	// noSpace joins the next text to the previous without a blank (\c,
	// mdoc's .Ns).
	noSpace bool
}

type pendingKind int

const (
	pendNone pendingKind = iota
	pendSection
	pendSubsection
	pendTag
	pendTagMore
)

func newBuilder() *builder { return &builder{} }

// flush closes the open block, keeping it only if it holds anything.
func (b *builder) flush() {
	if b.cur == nil {
		return
	}
	b.cur.Text = cleanText(b.body.String(), b.cur.Literal)
	b.cur.Tag = cleanText(b.tagText.String(), false)
	if b.cur.Text != "" || b.cur.Tag != "" {
		if b.sec == nil {
			b.page.Sections = append(b.page.Sections, Section{})
			b.sec = &b.page.Sections[len(b.page.Sections)-1]
		}
		b.sec.Blocks = append(b.sec.Blocks, *b.cur)
	}
	b.cur = nil
	b.body.Reset()
	b.tagText.Reset()
}

// section starts a top-level section.
func (b *builder) section(title string) {
	b.flush()
	b.pending = pendNone
	b.depth = 0
	b.items = b.items[:0]
	b.sub = ""
	if title == "" {
		b.pending = pendSection
		title = "\x00"
	}
	b.page.Sections = append(b.page.Sections, Section{Title: normTitle(title)})
	b.sec = &b.page.Sections[len(b.page.Sections)-1]
}

// subsection starts a subsection heading.
func (b *builder) subsection(title string) {
	b.flush()
	b.depth = 0
	b.items = b.items[:0]
	if title == "" {
		b.pending = pendSubsection
		return
	}
	b.sub = strings.TrimSpace(title)
}

func normTitle(t string) string {
	t = strings.Join(strings.Fields(strings.ReplaceAll(t, string(noSpaceMark), "")), " ")
	return strings.ToUpper(t)
}

// paragraph starts an untagged paragraph (.PP, .Pp, .LP): it continues an
// open item when it sits at the item's body depth or deeper.
func (b *builder) paragraph() {
	b.flush()
	b.open(b.continuesItem(b.depth))
}

// indented starts an untagged indented paragraph (.IP without a tag), which
// sits at a .TP body's indent.
func (b *builder) indented() {
	b.flush()
	b.open(b.continuesItem(b.depth + 1))
}

func (b *builder) continuesItem(depth int) bool {
	for len(b.items) > 0 && b.items[len(b.items)-1] > depth {
		b.items = b.items[:len(b.items)-1]
	}
	return len(b.items) > 0
}

// tagged starts a tagged paragraph whose body sits at bodyDepth. With tag
// empty the tag is the next line of text (.TP). A tagged paragraph whose
// body is still empty takes the new tag as an alias (".TP -a .TP --all"),
// but in EXAMPLES, where each is a command of its own
// (add-apt-repository lists its examples as bodiless ".TP" tags).
func (b *builder) tagged(tag string, bodyDepth int) {
	if b.cur != nil && b.tagText.Len() > 0 && strings.TrimSpace(b.body.String()) == "" && !b.cur.Cont && !headingTag(b.tagText.String()) &&
		(b.sec == nil || !exampleSection(b.sec.Title)) {
		if tag == "" {
			b.pending = pendTagMore
			return
		}
		b.tagText.WriteString(", ")
		b.tagText.WriteString(tag)
		return
	}
	b.flush()
	for len(b.items) > 0 && b.items[len(b.items)-1] >= bodyDepth {
		b.items = b.items[:len(b.items)-1]
	}
	b.items = append(b.items, bodyDepth)
	b.open(false)
	if tag == "" {
		b.pending = pendTag
		return
	}
	b.tagText.WriteString(tag)
}

// headingTag reports a tag that is a heading, not a name: a line of
// words ending in ":" that is not a flag's. memusage sets ".TP" "The
// following options apply only when generating graphical output:" with
// no body before ".TP" "-t, --time-based": the next tag is an entry of
// its own, not an alias of this one.
func headingTag(tag string) bool {
	t := strings.TrimSpace(strings.ReplaceAll(tag, string(noSpaceMark), ""))
	if t == "" || t[0] == '-' || t[0] == '+' {
		return false
	}
	return strings.HasSuffix(t, ":") && len(strings.Fields(t)) >= 2
}

// moreTag makes the next line an alias tag of the open item (.TQ).
func (b *builder) moreTag() {
	if b.cur != nil && b.tagText.Len() > 0 && strings.TrimSpace(b.body.String()) == "" {
		b.pending = pendTagMore
		return
	}
	b.tagged("", b.depth+1)
}

func (b *builder) open(cont bool) {
	b.cur = &Block{Subsection: b.sub, Depth: b.depth, Cont: cont, Literal: b.nofill}
}

// indent changes the depth (.RS/.RE); text after it is a new block.
func (b *builder) indent(delta int) {
	b.flush()
	b.depth += delta
	if b.depth < 0 {
		b.depth = 0
	}
}

// setFill switches between filled text and literal lines; a switch starts
// a new block so literal commands stay apart from prose.
func (b *builder) setFill(fill bool) {
	if b.nofill == !fill {
		return
	}
	if b.cur != nil && (b.body.Len() > 0) {
		cont := b.cur.Cont || len(b.items) > 0 && b.cur.Tag != ""
		b.flush()
		b.nofill = !fill
		b.open(cont && b.continuesItem(b.depth+1))
		return
	}
	b.nofill = !fill
	if b.cur != nil && b.body.Len() == 0 {
		b.cur.Literal = b.nofill
	}
}

// text adds one decoded line. fill says whether roff would fill it (man
// text) or whether it is already a formatted phrase (mdoc output).
func (b *builder) text(s string, fill bool) {
	switch b.pending {
	case pendSection:
		b.pending = pendNone
		if b.sec != nil {
			b.sec.Title = normTitle(s)
		}
		return
	case pendSubsection:
		b.pending = pendNone
		b.sub = strings.TrimSpace(strings.ReplaceAll(s, string(noSpaceMark), ""))
		return
	case pendTag, pendTagMore:
		if b.pending == pendTagMore && b.tagText.Len() > 0 {
			b.tagText.WriteString(", ")
		}
		b.pending = pendNone
		if b.cur == nil {
			b.open(false)
		}
		b.tagText.WriteString(strings.TrimSpace(strings.ReplaceAll(s, string(noSpaceMark), "")))
		return
	}
	if b.cur == nil {
		b.open(b.continuesItem(b.depth))
	}
	if b.nofill {
		if strings.HasSuffix(s, string(noSpaceMark)) {
			b.body.WriteString(strings.TrimSuffix(s, string(noSpaceMark)))
			b.noSpace = true
			return
		}
		b.body.WriteString(s)
		b.body.WriteByte('\n')
		return
	}
	if strings.TrimSpace(s) == "" {
		// a blank line in filled text is a paragraph break
		if b.body.Len() > 0 {
			b.body.WriteString("\n\n")
		}
		return
	}
	if b.body.Len() > 0 && !b.noSpace {
		if fill && (s[0] == ' ' || s[0] == '\t') {
			b.body.WriteByte('\n')
		} else {
			b.body.WriteByte(' ')
		}
	}
	b.noSpace = false
	if strings.HasSuffix(s, string(noSpaceMark)) {
		s = strings.TrimSuffix(s, string(noSpaceMark))
		b.noSpace = true
	}
	b.body.WriteString(s)
}

// breakLine ends the output line (.br) without ending the block.
func (b *builder) breakLine() {
	if b.cur != nil && b.body.Len() > 0 && !b.nofill {
		b.body.WriteByte('\n')
	}
}

// space is a vertical space (.sp): a paragraph break inside the block.
func (b *builder) space() {
	if b.cur != nil && b.body.Len() > 0 {
		if b.nofill {
			b.body.WriteByte('\n')
			return
		}
		b.body.WriteString("\n\n")
	}
}

// cleanText normalises a block's text: marks removed, filled lines with
// single blanks, at most one empty line between paragraphs.
func cleanText(s string, literal bool) string {
	s = strings.ReplaceAll(s, string(noSpaceMark), "")
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if !literal {
			l = strings.Join(strings.Fields(l), " ")
		}
		if l == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// finishPage closes the last block, drops empty sections and fills in the
// page fields derived from sections.
func (b *builder) finishPage() *Page {
	b.flush()
	p := &b.page
	secs := p.Sections[:0]
	for _, s := range p.Sections {
		if s.Title == "\x00" {
			s.Title = ""
		}
		if len(s.Blocks) == 0 && s.Title == "" {
			continue
		}
		secs = append(secs, s)
	}
	p.Sections = secs
	return p
}
