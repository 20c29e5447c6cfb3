package search

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
)

// ErrUnknownCommand is Docs' answer for a command the index does not hold.
var ErrUnknownCommand = errors.New("unknown command")

// CommandDoc is one command's documentation as the index holds it: its
// details and every record of it, summary first, then options, examples
// and other sections, each in page order (their ids' order).
type CommandDoc struct {
	CommandHit
	// AliasAsked is the name asked for when it is an alias of Command
	// (gunzip for gzip): the page is the command's.
	AliasAsked string `json:"alias_asked,omitempty"`
	// Records carry no Score: they answer no request.
	Records []Match `json:"records"`
}

// Docs reads one command's records from the index, by their metadata:
// the documentation an assistant asks for by name, without reading the
// man page again.
func (s Searcher) Docs(ctx context.Context, command string) (CommandDoc, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return CommandDoc{}, fmt.Errorf("no command named: give one, e.g. \"grep\"")
	}
	recs, err := s.Coll.All(ctx, chroma.Include{Documents: true, Where: index.WhereCommand(command)})
	if err != nil {
		return CommandDoc{}, fmt.Errorf("read the records of %s: %w", command, err)
	}
	alias := ""
	if len(recs) == 0 {
		if owner, err := s.aliasOwner(ctx, command); err != nil {
			return CommandDoc{}, err
		} else if owner != "" {
			alias = command
			if recs, err = s.Coll.All(ctx, chroma.Include{Documents: true, Where: index.WhereCommand(owner)}); err != nil {
				return CommandDoc{}, fmt.Errorf("read the records of %s: %w", owner, err)
			}
		}
	}
	if len(recs) == 0 {
		return CommandDoc{}, fmt.Errorf("%w %q: it is not in the index (search by what it does with search_commands, or add it with `cmdai index init --command %s`)", ErrUnknownCommand, command, command)
	}
	sort.SliceStable(recs, func(i, j int) bool {
		ki, kj := kindOrder[metaOf(recs[i]).Kind], kindOrder[metaOf(recs[j]).Kind]
		if ki != kj {
			return ki < kj
		}
		return lessID(recs[i].ID, recs[j].ID)
	})
	doc := CommandDoc{CommandHit: *commandOf(metaOf(recs[0])), AliasAsked: alias}
	for _, r := range recs {
		doc.Records = append(doc.Records, matchOf(chroma.Hit{Record: r}))
	}
	return doc, nil
}

// aliasOwner is the command whose page name is an alias of (gzip for
// gunzip), or "": a command's aliases are on its records, not records of
// their own. Only asked when name has no records, from the summaries
// alone (one per command, no text).
func (s Searcher) aliasOwner(ctx context.Context, name string) (string, error) {
	recs, err := s.Coll.All(ctx, chroma.Include{Where: index.WhereKind(index.KindSummary)})
	if err != nil {
		return "", fmt.Errorf("look %s up among the commands' aliases: %w", name, err)
	}
	for _, r := range recs {
		md := metaOf(r)
		for _, a := range md.Aliases {
			if a == name {
				return md.Command, nil
			}
		}
	}
	return "", nil
}

// kindOrder is the order Docs gives records: what the command is for,
// then how to call it, then the rest.
var kindOrder = map[index.Kind]int{index.KindSummary: 0, index.KindOption: 1, index.KindExample: 2, index.KindSection: 3}

// lessID orders ids so that a numbered part follows its section in
// number order ("X#EXAMPLES#2" before "X#EXAMPLES#10"). Option ids carry
// the flag, not the page position, so options come in flag order.
func lessID(a, b string) bool {
	pa, na := splitPart(a)
	pb, nb := splitPart(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitPart(id string) (string, int) {
	i := strings.LastIndex(id, "#")
	if i < 0 {
		return id, 0
	}
	n := 0
	for _, r := range id[i+1:] {
		if r < '0' || r > '9' {
			return id, 0
		}
		n = n*10 + int(r-'0')
	}
	return id[:i], n
}

// Parts of a command's documentation that RenderDocs can give alone.
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

// ErrUnknownOption is RenderOption's answer for a flag the command's
// records do not hold.
var ErrUnknownOption = errors.New("unknown option")

// RenderOption is the full text of the command's option record whose
// flags include flag ("--count", "-c", "count"), flags line first.
func RenderOption(doc CommandDoc, flag string) (string, error) {
	want := strings.TrimSpace(flag)
	if want == "" {
		return "", fmt.Errorf("empty option: name one, e.g. --count")
	}
	var names []string
	for _, m := range doc.Records {
		if m.Kind != index.KindOption {
			continue
		}
		flags, body := manparse.SplitChunk(string(m.Kind), m.Text)
		for _, f := range flagNames(flags) {
			if f == want || strings.TrimLeft(f, "-") == want {
				return fmt.Sprintf("%s %s\n%s\n", doc.Command, flags, strings.TrimSpace(body)), nil
			}
		}
		if m.Option != "" {
			names = append(names, m.Option)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("%w %s: %s has no option records in the index", ErrUnknownOption, want, doc.Command)
	}
	return "", fmt.Errorf("%w %s of %s (it has %d options in the index, e.g. %s; section=options lists them)",
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

// RenderDocs writes one part of the command's documentation (or all of
// it: summary, options one line each, examples) as plain text within
// maxTokens (estimated as for RenderContext). What does not fit is cut
// whole, and a last line says how much was left out and how to ask for it.
func RenderDocs(doc CommandDoc, part string, maxTokens int) string {
	if maxTokens <= 0 {
		maxTokens = DefaultContextTokens
	}
	var lines []string
	head := doc.Command
	if doc.ManSection != "" {
		head += "(" + doc.ManSection + ")"
	}
	if doc.Description != "" {
		head += " - " + doc.Description
	}
	if doc.Version != "" {
		head += " [" + doc.Version + "]"
	}
	if doc.AliasAsked != "" {
		head += " (" + doc.AliasAsked + " is an alias of " + doc.Command + ": this is its page)"
	}
	lines = append(lines, head)
	words := wordCount(head)
	left := 0
	add := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		titled := false
		for _, it := range items {
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
			words += c
		}
	}
	summary, opts, examples := docParts(doc)
	switch part {
	case PartSummary:
		add("SUMMARY", summary)
	case PartSynopsis:
		add("SYNOPSIS", synopsisLines(doc))
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
	return strings.Join(lines, "\n") + "\n"
}

// docParts cuts a command's records into the summary's paragraphs (the
// heading line dropped: RenderDocs writes its own), one line per option
// and one entry per example.
func docParts(doc CommandDoc) (summary, opts, examples []string) {
	seen := map[string]bool{}
	for _, m := range doc.Records {
		switch m.Kind {
		case index.KindSummary:
			_, body := manparse.SplitChunk(string(m.Kind), m.Text)
			if s := strings.TrimSpace(body); s != "" {
				summary = append(summary, s)
			}
		case index.KindOption:
			if m.Option != "" && seen[m.Option] {
				continue
			}
			seen[m.Option] = true
			opts = append(opts, optionLine(m))
		case index.KindExample:
			if ex := exampleLine(doc.Command, m); ex != "" {
				examples = append(examples, ex)
			} else if _, body := manparse.SplitChunk(string(m.Kind), m.Text); strings.TrimSpace(body) != "" {
				examples = append(examples, firstSentence(body, 240))
			}
		}
	}
	return summary, opts, examples
}

// synopsisLines are the lines of the summary record between its
// "SYNOPSIS" line and the first line of prose (the start of DESCRIPTION,
// which the summary record holds too).
func synopsisLines(doc CommandDoc) []string {
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
