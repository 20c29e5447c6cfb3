package manparse

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk kinds.
const (
	KindSummary = "summary" // NAME + SYNOPSIS + the start of DESCRIPTION
	KindOption  = "option"  // one option entry
	KindExample = "example" // one example
	KindSection = "section" // a piece of any other section
)

// The first line of an option chunk is "<name>(<section>) option <flags>"
// and that of an example chunk "<name>(<section>) example"; the body
// follows. SplitChunk reads them back, so renderers need not know them.
const (
	optionHeading  = " option "
	exampleHeading = " example"
)

// SplitChunk splits the text of a chunk of the given kind into its label
// and its body: an option chunk's label is its flags and argument
// ("-r, --recursive"), any other chunk's is its first line. A text of
// one line is an option's label, or any other kind's body.
func SplitChunk(kind, text string) (label, body string) {
	first, rest, ok := strings.Cut(text, "\n")
	if kind == KindOption {
		if i := strings.Index(first, optionHeading); i >= 0 {
			first = first[i+len(optionHeading):]
		}
		return first, rest
	}
	if !ok {
		return "", text
	}
	return first, rest
}

// maxPara bounds the bytes of one paragraph split into chunks.
const maxPara = 64 << 10

// DefaultMaxTokens is all-MiniLM-L6-v2's sequence limit: the model
// truncates beyond 256 word pieces, so a longer chunk would be embedded
// by its start only.
const DefaultMaxTokens = 256

// Chunk is one piece of a page sized for the embedder. Everything here is
// known from the page alone; the pipeline adds where the page came from
// (installed path, distro, ...).
type Chunk struct {
	// ID is stable across runs so upserts replace in place:
	// "<name>.<section>#<SECTION>[#<option or part>]", e.g.
	// "grep.1#OPTIONS#--recursive", "grep.1#EXAMPLES#2".
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Command string `json:"command"`
	// ManSection is the manual section, e.g. "1" or "1ssl".
	ManSection string `json:"man_section"`
	// Section is the title of the page section the text comes from.
	Section string `json:"section"`
	// Option is the option's main flag for option chunks.
	Option string `json:"option,omitempty"`
	Text   string `json:"text"`
	// Tokens is the chunk's length in word pieces as counted by
	// ChunkOptions.CountTokens.
	Tokens int `json:"tokens"`

	// part numbers the pieces of one section, option or example from 0:
	// Budget keeps first pieces before continuations.
	part int
}

// ChunkOptions tune chunking.
type ChunkOptions struct {
	// MaxTokens bounds each chunk (word pieces, including the model's two
	// special tokens). Zero means DefaultMaxTokens.
	MaxTokens int
	// CountTokens counts word pieces; nil means EstimateTokens. The
	// embedder passes its real tokenizer so chunks fit exactly.
	CountTokens func(string) int
	// Command names the chunks (ids and Command) instead of the page's
	// own name: the name on $PATH is what users type, while NAME may say
	// "GNU grep" or list several names.
	Command string
}

// skippedSections carry no help for choosing or using a command.
var skippedSections = map[string]bool{
	"AUTHOR": true, "AUTHORS": true, "COPYRIGHT": true, "COPYRIGHT AND LICENSE": true,
	"REPORTING BUGS": true, "BUG REPORTS": true, "COLOPHON": true, "HISTORY": true,
	"LICENSE": true, "AVAILABILITY": true, "SEE ALSO": true, "AUTHORS / CONTRIBUTORS": true,
	"WWW": true, "TRANSLATION": true, "TRANSLATOR": true,
}

// Chunks cuts the page into embedder-sized pieces: one summary, one per
// option entry, one per example, and the remaining prose of the other
// sections split on paragraph boundaries. IDs are unique within the page.
func (p *Page) Chunks(opts ChunkOptions) []Chunk {
	c := chunker{page: p, max: opts.MaxTokens, count: opts.CountTokens, seen: map[string]int{}}
	if c.max <= 0 {
		c.max = DefaultMaxTokens
	}
	if c.count == nil {
		c.count = EstimateTokens
	}
	c.name = p.Name
	if opts.Command != "" {
		c.name = opts.Command
	}
	c.base = idPart(c.name)
	if c.base == "" {
		c.base = "unknown"
	}
	if p.Section != "" {
		c.base += "." + idPart(p.Section)
	}
	c.head = c.name
	if p.Section != "" {
		c.head += "(" + p.Section + ")"
	}

	// The summary took the opening blocks of the first DESCRIPTION only
	// (FindSection): a page may have a second one, maybe shorter, whose
	// blocks are all still to be chunked.
	summaryDesc, usedDesc := p.FindSection("DESCRIPTION"), c.summary()
	for si := range p.Sections {
		s := &p.Sections[si]
		switch {
		case s.Title == "NAME" || s.Title == "SYNOPSIS" || skippedSections[s.Title]:
			continue
		case exampleSection(s.Title) && hasExamplesFrom(p):
			continue // chunked per example below
		}
		start := 0
		if s == summaryDesc {
			start = usedDesc
		}
		c.prose(s, start)
	}
	for _, o := range p.Options {
		c.option(o)
	}
	for i, e := range p.Examples {
		c.example(i+1, e)
	}
	return c.out
}

func hasExamplesFrom(p *Page) bool { return len(p.Examples) > 0 }

type chunker struct {
	page  *Page
	name  string // the command the chunks are named by
	max   int
	count func(string) int
	base  string // "grep.1"
	head  string // "grep(1)"
	seen  map[string]int
	out   []Chunk
}

// emit appends a chunk with a page-unique id: a repeated id (an option
// documented twice) gets a "~2" suffix rather than overwriting the first.
func (c *chunker) emit(ch Chunk) {
	if n := c.seen[ch.ID]; n > 0 {
		c.seen[ch.ID] = n + 1
		ch.ID += "~" + strconv.Itoa(n+1)
	} else {
		c.seen[ch.ID] = 1
	}
	ch.Command = c.name
	ch.ManSection = c.page.Section
	ch.Tokens = c.count(ch.Text)
	if ch.Tokens > c.max {
		// only a pathological heading (a name hundreds of pieces long)
		// gets here: the model would truncate it anyway, so cut it now
		// and keep the promise that every chunk fits.
		ch.Text = c.fit(ch.Text, c.max)
		ch.Tokens = c.count(ch.Text)
	}
	c.out = append(c.out, ch)
}

// summary emits NAME + SYNOPSIS + as much of DESCRIPTION's opening prose
// as fits, and returns how many DESCRIPTION blocks it consumed.
func (c *chunker) summary() int {
	p := c.page
	var b strings.Builder
	b.WriteString(c.head)
	if p.Description != "" {
		b.WriteString(" - " + p.Description)
	}
	if syn := p.FindSection("SYNOPSIS"); syn != nil {
		// A long synopsis (find, ssh) would crowd out the description:
		// give it at most half of the budget.
		t := c.fit("SYNOPSIS\n"+collapseBlank(syn.Text()), c.max/2)
		b.WriteString("\n" + t)
	}
	used := 0
	if d := p.FindSection("DESCRIPTION"); d != nil {
		for i, blk := range d.Blocks {
			if blk.option {
				break
			}
			next := b.String() + "\n" + blk.String()
			if c.count(next) > c.max {
				if used == 0 && i == 0 {
					// the first paragraph alone is too long: take its start
					// and leave the whole paragraph to the DESCRIPTION chunks
					rest := c.max - c.count(b.String()) - 1
					if rest > 16 {
						b.WriteString("\n" + c.fit(blk.String(), rest))
					}
				}
				break
			}
			b.WriteString("\n" + blk.String())
			used = i + 1
		}
	}
	c.emit(Chunk{ID: c.base + "#NAME", Kind: KindSummary, Section: "NAME", Text: b.String()})
	return used
}

// prose emits a section's non-option blocks from start on, packing whole
// paragraphs up to the budget.
func (c *chunker) prose(s *Section, start int) {
	title := s.Title
	prefix := c.head + " " + title + "\n"
	var paras []string
	for _, blk := range s.Blocks[start:] {
		if blk.option {
			if blk.leftover != "" {
				paras = append(paras, blk.leftover)
			}
			continue
		}
		paras = append(paras, blk.String())
	}
	budget := c.max - c.count(prefix)
	for i, text := range c.pack(paras, budget) {
		id := c.base + "#" + idPart(title)
		if i > 0 {
			id += "#" + strconv.Itoa(i+1)
		}
		c.emit(Chunk{ID: id, Kind: KindSection, Section: title, Text: prefix + text, part: i})
	}
}

func (c *chunker) option(o Option) {
	main := mainFlag(o.Flags)
	head := c.head + optionHeading + strings.Join(o.Flags, ", ")
	if o.Arg != "" {
		head += " " + o.Arg
	}
	head += "\n"
	parts := c.pack(splitParas(o.Description), c.max-c.count(head))
	if len(parts) == 0 {
		parts = []string{""}
	}
	for i, text := range parts {
		id := c.base + "#" + idPart(o.Section) + "#" + idPart(main)
		if i > 0 {
			id += "#" + strconv.Itoa(i+1)
		}
		c.emit(Chunk{ID: id, Kind: KindOption, Section: o.Section, Option: main, Text: strings.TrimRight(head+text, "\n"), part: i})
	}
}

func (c *chunker) example(n int, e Example) {
	head := c.head + exampleHeading + "\n"
	var paras []string
	if e.Description != "" {
		paras = append(paras, splitParas(e.Description)...)
	}
	if e.Command != "" {
		paras = append(paras, e.Command)
	}
	if e.Notes != "" {
		paras = append(paras, splitParas(e.Notes)...)
	}
	for i, text := range c.pack(paras, c.max-c.count(head)) {
		id := c.base + "#EXAMPLES#" + strconv.Itoa(n)
		if i > 0 {
			id += "." + strconv.Itoa(i+1)
		}
		c.emit(Chunk{ID: id, Kind: KindExample, Section: "EXAMPLES", Text: head + text, part: i})
	}
}

// pack groups paragraphs into texts of at most budget tokens, splitting a
// paragraph that alone is too long at sentence, then word, boundaries.
func (c *chunker) pack(paras []string, budget int) []string {
	if budget < 16 {
		budget = 16
	}
	var out []string
	cur := ""
	flush := func() {
		if strings.TrimSpace(cur) != "" {
			out = append(out, cur)
		}
		cur = ""
	}
	for _, para := range paras {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		joined := para
		if cur != "" {
			joined = cur + "\n\n" + para
		}
		if c.count(joined) <= budget {
			cur = joined
			continue
		}
		flush()
		if c.count(para) <= budget {
			cur = para
			continue
		}
		for _, piece := range c.split(para, budget) {
			out = append(out, piece)
		}
	}
	flush()
	return out
}

// split cuts one over-long paragraph into pieces within budget: at
// sentence ends where it can, else between words, else between runes.
func (c *chunker) split(para string, budget int) []string {
	if len(para) > maxPara {
		// no page has a paragraph this long; one made by a macro that
		// calls itself would cost its splitting seconds (each unit is
		// counted with the text before it)
		para = strings.ToValidUTF8(para[:maxPara], "")
	}
	var out []string
	cur := ""
	for _, unit := range splitUnits(para) {
		joined := cur + unit
		if c.count(joined) <= budget {
			cur = joined
			continue
		}
		if strings.TrimSpace(cur) != "" {
			out = append(out, strings.TrimSpace(cur))
		}
		cur = unit
		for {
			head := c.fit(cur, budget)
			if head == "" || head == cur {
				break
			}
			out = append(out, head)
			cur = strings.TrimSpace(cur[len(head):])
		}
	}
	if strings.TrimSpace(cur) != "" {
		out = append(out, strings.TrimSpace(cur))
	}
	return out
}

// Head is the longest start of s, cut between words, that is at most
// tokens word pieces as EstimateTokens counts them (the model's two
// special tokens included): s itself when it fits. The builder embeds a
// chunk's head when it must save time and keeps the whole text.
func Head(s string, tokens int) string {
	if tokens <= 0 {
		return s
	}
	c := chunker{count: EstimateTokens}
	return c.fit(s, tokens)
}

// fitWindow is how many bytes per token of budget fit looks at first;
// the window doubles while it fits whole (long words, runs of blanks).
const fitWindow = 4

// fit returns the longest prefix of s, cut between words (or runes for
// a single huge word), that stays within budget tokens. It looks at a
// growing window of s, not all of it: counting the whole rest of a
// paragraph megabytes long (a macro that expands to itself) for each
// piece was quadratic.
func (c *chunker) fit(s string, budget int) string {
	for w := budget * fitWindow; w > 0 && w < len(s); w *= 2 {
		if head := c.fitAll(s[:w], budget); head != s[:w] {
			return head
		}
	}
	return c.fitAll(s, budget)
}

// fitAll is fit over the whole of s.
func (c *chunker) fitAll(s string, budget int) string {
	if c.count(s) <= budget {
		return s
	}
	// binary search over word boundaries
	bounds := []int{}
	for i := 1; i < len(s); i++ {
		if isSpace(s[i]) && !isSpace(s[i-1]) {
			bounds = append(bounds, i)
		}
	}
	lo, hi := 0, len(bounds)-1
	best := -1
	for lo <= hi {
		mid := (lo + hi) / 2
		if c.count(s[:bounds[mid]]) <= budget {
			best = mid
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best >= 0 {
		return s[:bounds[best]]
	}
	// a single word longer than the budget: cut between runes
	n := 0
	for i := range s {
		if i > 0 && c.count(s[:i]) > budget {
			break
		}
		n = i
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// splitUnits splits text after sentence ends (". " and newlines), keeping
// the separators, so that joining the units gives the text back.
func splitUnits(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		end := false
		switch s[i] {
		case '\n':
			end = true
		case '.', '?', '!', ';':
			end = i+1 < len(s) && s[i+1] == ' '
		}
		if end {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func splitParas(s string) []string {
	return strings.Split(s, "\n\n")
}

// collapseBlank removes blank lines: a synopsis's forms need no spacing.
func collapseBlank(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// mainFlag picks the flag an option chunk is named by: the first long
// spelling ("--recursive" for "-r, --recursive"), else the first one.
func mainFlag(flags []string) string {
	for _, f := range flags {
		if strings.HasPrefix(f, "--") {
			return f
		}
	}
	if len(flags) == 0 {
		return ""
	}
	return flags[0]
}

// idPart makes a title or flag safe inside an id: spaces and '#' (the id
// separator) become '_'.
func idPart(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '#' || unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(s))
}

// EstimateTokens approximates the number of BERT word pieces in s, plus the
// two special tokens, erring high so that estimated chunks fit the model:
// each punctuation mark is a piece, short words are one piece, long or
// digit-heavy words are split into several.
func EstimateTokens(s string) int {
	n := 2 // [CLS] and [SEP]
	run, digits := 0, 0
	end := func() {
		if run > 0 {
			switch {
			case digits > 0:
				n += (run + 2) / 3
			case run <= 9:
				n++
			default:
				n += 1 + (run-6)/4
			}
		}
		run, digits = 0, 0
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if r > unicode.MaxASCII {
				// accented and CJK text splits finely
				end()
				n++
				continue
			}
			run++
			if r >= '0' && r <= '9' {
				digits++
			}
		case unicode.IsSpace(r):
			end()
		default:
			end()
			n++
		}
	}
	end()
	return n
}
