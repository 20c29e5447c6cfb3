package render

import (
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search/shown"
)

// versionText is how a hit's version is written: the owning package's
// version, naming the package ("1.34+dfsg-1.2 (package tar)"), or a
// custom doc's own version as it is.
func versionText(h shown.CommandHit) string {
	if h.Package != "" {
		return h.Version + " (package " + h.Package + ")"
	}
	return h.Version
}

// DefaultContextTokens is the default budget of Context.
const DefaultContextTokens = 800

// Context writes the hits as the prompt block an assistant puts in
// front of its model (the format of the design document 001):
//
//	COMMAND DOCUMENTATION (from vector database):
//	- Command: grep
//	  Version: 3.8-5 (package grep)
//	  Description: print lines that match patterns
//
//	  Relevant Options:
//	  -i, --ignore-case    Ignore case distinctions
//
//	  Example Usage:
//	  grep -r "TODO" .
//
// It stays within maxTokens (estimated as words x 4/3): commands are added
// best first, each with as many of its options and examples as fit, and
// a command that does not fit at all ends the block.
func Context(hits []shown.CommandHit, maxTokens int) string {
	if maxTokens <= 0 {
		maxTokens = DefaultContextTokens
	}
	var b strings.Builder
	head := "COMMAND DOCUMENTATION (from vector database):\n"
	b.WriteString(head)
	// Count words, not per-piece estimates, so that the block as a whole
	// is what stays within the budget.
	words := wordCount(head)
	fits := func(extra int) bool { return tokensOfWords(words+extra) <= maxTokens }
	for _, h := range hits {
		block := []string{"- Command: " + h.Invocation()}
		if h.Version != "" {
			block = append(block, "  Version: "+versionText(h))
		}
		if h.Description != "" {
			block = append(block, "  Description: "+h.Description)
		}
		cost := wordCount(strings.Join(block, "\n"))
		if !fits(cost) {
			break
		}
		words += cost
		var opts, examples []string
		seen := map[string]bool{}
		for _, m := range h.Matches {
			var line, title string
			switch {
			case m.Kind == index.KindOption && len(opts) < maxOptions && !seen[m.Option]:
				line, title = "  "+optionLine(m), optionsTitle
				if len(opts) > 0 {
					title = ""
				}
			case m.Kind == index.KindExample && len(examples) < maxExamples:
				ex := exampleLine(h.Invocation(), m)
				if ex == "" {
					continue
				}
				line, title = "  "+ex, examplesTitle
				if len(examples) > 0 {
					title = ""
				}
			default:
				continue
			}
			c := wordCount(line) + wordCount(title)
			if !fits(c) {
				continue
			}
			words += c
			if m.Kind == index.KindOption {
				seen[m.Option] = true
				opts = append(opts, line)
			} else {
				examples = append(examples, line)
			}
		}
		if len(opts) > 0 {
			block = append(block, "", optionsTitle)
			block = append(block, opts...)
		}
		if len(examples) > 0 {
			block = append(block, "", examplesTitle)
			block = append(block, examples...)
		}
		b.WriteString(strings.Join(block, "\n"))
		b.WriteString("\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// optionLine renders an option chunk as "-r, --recursive    Read all
// files ..." with the first sentence of its description.
func optionLine(m shown.Match) string {
	flags, body := manparse.SplitChunk(string(m.Kind), m.Text)
	return fmt.Sprintf("%-24s %s", flags, firstSentence(body, 160))
}

// Per command, at most this many options and examples go in the block,
// so that one command's long page does not take the whole budget.
const (
	maxOptions  = 6
	maxExamples = 2
)

// exampleLine renders an example chunk as its command line with the
// first sentence of its explanation as a comment, or "" when the chunk
// holds no command line.
func exampleLine(command string, m shown.Match) string {
	_, rest := manparse.SplitChunk(string(m.Kind), m.Text)
	var cmdLine string
	var prose []string
	for _, l := range strings.Split(rest, "\n") {
		t := strings.TrimSpace(l)
		t = strings.TrimPrefix(t, "$ ")
		if cmdLine == "" && (strings.HasPrefix(t, command+" ") || t == command) {
			cmdLine = t
			continue
		}
		prose = append(prose, t)
	}
	if cmdLine == "" {
		return ""
	}
	if len(cmdLine) > 160 {
		return ""
	}
	if c := firstSentence(strings.Join(prose, " "), 120); c != "" {
		return cmdLine + "    # " + c
	}
	return cmdLine
}

func firstSentence(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 && i < max {
		return s[:i+1]
	}
	if len(s) > max {
		cut := strings.LastIndex(s[:max], " ")
		if cut <= 0 {
			cut = max
		}
		return s[:cut] + " ..."
	}
	return s
}

const (
	optionsTitle  = "  Relevant Options:"
	examplesTitle = "  Example Usage:"
)

// estimateTokens approximates word pieces: about 4/3 per word.
func estimateTokens(s string) int { return tokensOfWords(wordCount(s)) }

func tokensOfWords(n int) int { return (n*4 + 2) / 3 }

func wordCount(s string) int { return len(strings.Fields(s)) }

// ExampleLine is an example record's command line as it would be run
// (its first line that starts with the command, invocation), or "".
func ExampleLine(invocation string, m shown.Match) string { return exampleLine(invocation, m) }

// ChosenFlags are the options among the first chosen of ms (a hit's
// Matches, a doc's Records) as their page spells them ("-C, --directory
// DIR"), best first: the option ranker's choice, which the JSON carries
// in the matches themselves (shown.CommandHit.Chosen).
func ChosenFlags(ms []shown.Match, chosen int) []string {
	var out []string
	for _, m := range ms[:min(chosen, len(ms))] {
		if m.Kind == index.KindOption {
			label, _ := manparse.SplitChunk(string(m.Kind), m.Text)
			out = append(out, label)
		}
	}
	return out
}
