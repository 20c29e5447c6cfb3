package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// Parts of a command's documentation that Docs can give alone.
const (
	PartAll      = ""
	PartSummary  = "summary"
	PartSynopsis = "synopsis"
	PartOptions  = "options"
	PartExamples = "examples"
)

// ParsePart reads a part name; "" and "all" are everything.
func ParsePart(s string) (string, error) {
	switch p := strings.ToLower(strings.TrimSpace(s)); p {
	case "", "all":
		return PartAll, nil
	case PartSummary, PartSynopsis, PartOptions, PartExamples:
		return p, nil
	}
	return "", fmt.Errorf("unknown section %q: use summary, synopsis, options, examples or all", s)
}

// ErrUnknownOption is Option's answer for a flag the command's
// records do not hold.
var ErrUnknownOption = errors.New("unknown option")

// Option is the full text of the command's option record whose
// flags include flag ("--count", "-c", "count"), flags line first.
func Option(doc search.CommandDoc, flag string) (string, error) {
	text, _, err := OptionShown(doc, flag)
	return text, err
}

// OptionShown is Option, and the index in doc.Records of the record it
// shows.
func OptionShown(doc search.CommandDoc, flag string) (string, int, error) {
	want := strings.TrimSpace(flag)
	if want == "" {
		return "", -1, fmt.Errorf("empty option: name one, e.g. --count")
	}
	var names []string
	for i, m := range doc.Records {
		if m.Kind != index.KindOption {
			continue
		}
		flags, body := manparse.SplitChunk(string(m.Kind), m.Text)
		for _, f := range flagNames(flags) {
			if f == want || strings.TrimLeft(f, "-") == want {
				return fmt.Sprintf("%s %s\n%s\n", doc.Command, flags, strings.TrimSpace(body)), i, nil
			}
		}
		if m.Option != "" {
			names = append(names, m.Option)
		}
	}
	if len(names) == 0 {
		return "", -1, fmt.Errorf("%w %s: %s has no option records in the index", ErrUnknownOption, want, doc.Command)
	}
	return "", -1, fmt.Errorf("%w %s of %s (it has %d options in the index, e.g. %s; section=options lists them)",
		ErrUnknownOption, want, doc.Command, len(names), strings.Join(names[:min(5, len(names))], ", "))
}

// flagNames are the flags of an option's heading: "-c, --count" gives
// -c and --count; "--color[=WHEN]" gives --color; "-m NUM" gives -m.
func flagNames(heading string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(heading, func(r rune) bool { return r == ',' || r == ' ' || r == '=' || r == '[' }) {
		if strings.HasPrefix(f, "-") || strings.HasPrefix(f, "+") {
			out = append(out, f)
		}
	}
	return out
}

// Docs writes one part of the command's documentation (or all of
// it: summary, options one line each, examples) as plain text within
// maxTokens (estimated as for Context). What does not fit is cut
// whole, and a last line says how much was left out and how to ask for it.
func Docs(doc search.CommandDoc, part string, maxTokens int) string {
	text, _ := DocsShown(doc, part, maxTokens)
	return text
}

// DocsShown is Docs, and the indexes in doc.Records of the records the
// text shows (in their order there): what an answer that also gives the
// records themselves (MCP's structured content) keeps of them, so that
// both say the same within the same budget.
func DocsShown(doc search.CommandDoc, part string, maxTokens int) (string, []int) {
	if maxTokens <= 0 {
		maxTokens = DefaultContextTokens
	}
	var lines []string
	head := pageHead(doc.CommandHit)
	if doc.Description != "" {
		head += " - " + doc.Description
	}
	if doc.Version != "" {
		head += " [" + versionText(doc.CommandHit) + "]"
	}
	if doc.AliasAsked != "" {
		head += " (" + doc.AliasAsked + " is an alias of " + doc.Command + ": this is its page)"
	}
	lines = append(lines, head)
	words := wordCount(head)
	left := 0
	shown := map[int]bool{}
	add := func(title string, items []item) {
		if len(items) == 0 {
			return
		}
		titled := false
		for _, item := range items {
			it := item.text
			c := wordCount(it)
			if !titled {
				c += wordCount(title)
			}
			if tokensOfWords(words+c) > maxTokens {
				left++
				continue
			}
			if !titled {
				lines = append(lines, "", title)
				titled = true
			}
			lines = append(lines, it)
			shown[item.record] = true
			words += c
		}
	}
	summary, opts, examples := docParts(doc)
	switch part {
	case PartSummary:
		add("SUMMARY", summary)
	case PartSynopsis:
		add("SYNOPSIS", synopsisItems(doc))
	case PartOptions:
		add("OPTIONS", opts)
	case PartExamples:
		add("EXAMPLES", examples)
	default:
		add("SUMMARY", summary)
		add("OPTIONS", opts)
		add("EXAMPLES", examples)
	}
	if len(lines) == 1 && left == 0 {
		lines = append(lines, "", fmt.Sprintf("(no %s in the index for %s)", part, doc.Command))
	}
	if left > 0 {
		lines = append(lines, "", fmt.Sprintf("(%d more entries left out for the token budget: ask for one section, one option, or a larger max_tokens)", left))
	}
	var records []int
	for i := range doc.Records {
		if shown[i] {
			records = append(records, i)
		}
	}
	return strings.Join(lines, "\n") + "\n", records
}

// item is one entry of a part of Docs, and the index in the doc's
// Records of the record it comes from.
type item struct {
	text   string
	record int
}

// docParts cuts a command's records into the summary's paragraphs (the
// heading line dropped: Docs writes its own), one line per option
// and one entry per example.
func docParts(doc search.CommandDoc) (summary, opts, examples []item) {
	seen := map[string]bool{}
	for i, m := range doc.Records {
		switch m.Kind {
		case index.KindSummary:
			_, body := manparse.SplitChunk(string(m.Kind), m.Text)
			if s := strings.TrimSpace(body); s != "" {
				summary = append(summary, item{s, i})
			}
		case index.KindOption:
			if m.Option != "" && seen[m.Option] {
				continue
			}
			seen[m.Option] = true
			opts = append(opts, item{optionLine(m), i})
		case index.KindExample:
			if ex := exampleLine(doc.Invocation(), m); ex != "" {
				examples = append(examples, item{ex, i})
			} else if _, body := manparse.SplitChunk(string(m.Kind), m.Text); strings.TrimSpace(body) != "" {
				examples = append(examples, item{firstSentence(body, 240), i})
			}
		}
	}
	return summary, opts, examples
}

// synopsisItems are synopsisLines, each from the summary record.
func synopsisItems(doc search.CommandDoc) []item {
	var items []item
	for i, m := range doc.Records {
		if m.Kind == index.KindSummary {
			for _, l := range synopsisLines(doc) {
				items = append(items, item{l, i})
			}
			break
		}
	}
	return items
}

// synopsisLines are the lines of the summary record between its
// "SYNOPSIS" line and the first line of prose (the start of DESCRIPTION,
// which the summary record holds too).
func synopsisLines(doc search.CommandDoc) []string {
	for _, m := range doc.Records {
		if m.Kind != index.KindSummary {
			continue
		}
		var out []string
		in := false
		for _, l := range strings.Split(m.Text, "\n") {
			t := strings.TrimSpace(l)
			switch {
			case t == "SYNOPSIS":
				in = true
			case !in || t == "":
			case isProse(t):
				return out // DESCRIPTION has begun
			default:
				out = append(out, t)
			}
		}
		return out
	}
	return nil
}

// isProse tells a sentence from a synopsis line: it ends with a full
// stop, or has one followed by a capital ("... [FILE...]" is neither).
func isProse(line string) bool {
	if strings.HasSuffix(line, ".") && !strings.HasSuffix(line, "..") {
		return true
	}
	for i := strings.Index(line, ". "); i >= 0; {
		if i > 0 && line[i-1] != '.' && i+2 < len(line) && line[i+2] >= 'A' && line[i+2] <= 'Z' {
			return true
		}
		j := strings.Index(line[i+1:], ". ")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// pageHead names a hit's page, "grep(1)"; a subcommand's page is
// named after how its line starts: "git commit: git-commit(1)".
func pageHead(h shown.CommandHit) string {
	head := h.Command
	if h.ManSection != "" {
		head += "(" + h.ManSection + ")"
	}
	if h.Parent != "" {
		head = h.Invocation() + ": " + head
	}
	return head
}
