package render

import (
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/shown"
)

// DefaultBriefMatches is how many matched options or examples Brief
// gives per command by default.
const DefaultBriefMatches = 2

// Brief writes the hits as a few lines per command, for an agent
// that pays for every token it reads (seed 004: context-efficient):
//
//  1. find(1) - search for files in a directory hierarchy [GNU findutils 4.9.0]
//     -mtime n                 File's data was last modified less than, ...
//     $ find . -mtime 0    # files modified in the last 24 hours
//
// Per command: its line, then up to perCommand of its best matches that
// say how to do it (options and examples; a command whose matches are
// only prose gets its best one's first sentence). The full
// documentation of one command is Docs'.
func Brief(hits []shown.CommandHit, perCommand int) string {
	if perCommand <= 0 {
		perCommand = DefaultBriefMatches
	}
	if len(hits) == 0 {
		return "No matching command in the index.\n"
	}
	var b strings.Builder
	for i, h := range hits {
		line := fmt.Sprintf("%d. %s", i+1, pageHead(h))
		if h.Description != "" {
			line += " - " + h.Description
		}
		if h.Version != "" {
			line += " [" + versionText(h) + "]"
		}
		b.WriteString(line + "\n")
		n := perCommand
		if h.Chosen > 0 && perCommand == DefaultBriefMatches {
			n = h.Chosen // the option ranker's choice, as many as it chose
		}
		for _, m := range briefMatches(h, n) {
			b.WriteString("   " + m + "\n")
		}
	}
	return b.String()
}

// briefMatches are the lines of a command's best matches (its Matches
// are best first): options and examples, each option once.
func briefMatches(h shown.CommandHit, n int) []string {
	var out []string
	seen := map[string]bool{}
	var prose string
	for _, m := range h.Matches {
		if len(out) == n {
			break
		}
		switch m.Kind {
		case index.KindOption:
			if seen[m.Option] {
				continue
			}
			seen[m.Option] = true
			out = append(out, optionLine(m))
		case index.KindExample:
			if ex := exampleLine(h.Invocation(), m); ex != "" {
				out = append(out, "$ "+ex)
			}
		case index.KindSection:
			if prose == "" {
				if _, body, ok := strings.Cut(m.Text, "\n"); ok {
					prose = firstSentence(body, 160)
				}
			}
		}
	}
	if len(out) == 0 && prose != "" {
		out = append(out, prose)
	}
	return out
}
