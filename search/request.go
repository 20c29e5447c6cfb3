package search

import (
	"context"
	"strings"
	"unicode/utf8"
)

// DefaultMatches is how many matches of each command an answer shows
// unless asked for more. An assistant picks a command from its
// description and its best chunks (the option or example that answers);
// the 20-odd others of a long page cost it thousands of tokens. Two, each
// cut to DefaultMatchText, keep `-k 5 --json` under 4 KB on most requests
// (p50 3.8 KB over 200 NL2Bash requests); three would make it 4.9 KB
// (BENCHMARKS.md, "bytes per answer").
const DefaultMatches = 2

// DefaultMatchText is how many bytes of a match's text an answer shows
// unless asked for all: the option's or example's first lines, which say
// what it does; the rest of a long chunk is what makes an answer 8 KB.
const DefaultMatchText = 200

// Request is one question to the index and how to answer it: what
// `index query` and every other front end (serve, MCP) fill in.
type Request struct {
	Query string
	// K is how many commands to return (0: 5).
	K    int
	Mode Mode
	// Matches is how many matches to keep per command, in the order the
	// ranking gives them (0: DefaultMatches; below 0: all). The ranking
	// uses them all either way.
	Matches int
	// MatchText is how many bytes of each match's text to keep, cut at a
	// word (0: DefaultMatchText; below 0: all of it).
	MatchText int
	// Strict refuses to answer from the keyword index on disk when Chroma
	// cannot be reached (AnswerFromDisk): the caller gets the error.
	Strict bool
}

// Answer is what a request gets back.
type Answer struct {
	Commands []CommandHit
	// Degraded says why the answer comes from the keyword index on disk
	// alone ("" when it does not).
	Degraded string
}

// Answer answers the request with the collection and, for keyword and
// hybrid, the keyword index.
func (s Searcher) Answer(ctx context.Context, req Request) (Answer, error) {
	hits, vec, err := s.searchVec(ctx, req.Query, req.K, req.Mode)
	if err != nil {
		return Answer{}, err
	}
	if hits, err = s.chooseOptions(ctx, req.Query, vec, hits); err != nil {
		return Answer{}, err
	}
	return Answer{Commands: Compact(hits, req.Matches, req.MatchText)}, nil
}

// Compact keeps the first matches of each command (0: the ones the option
// ranker chose, else DefaultMatches; below 0: all), in the ranking's
// order, and cuts each one's text to
// text bytes at a word (0: DefaultMatchText; below 0: whole), marking it
// Truncated.
func Compact(hits []CommandHit, matches, text int) []CommandHit {
	explicit := matches != 0
	if matches == 0 {
		matches = DefaultMatches
	}
	if text == 0 {
		text = DefaultMatchText
	}
	for i := range hits {
		ms := hits[i].Matches
		keep := matches
		if keep == DefaultMatches && hits[i].Chosen > 0 && !explicit {
			keep = hits[i].Chosen
		}
		if keep > 0 && len(ms) > keep {
			ms = ms[:keep]
		}
		if text > 0 {
			// a copy: the caller's hits may share their matches
			ms = append([]Match(nil), ms...)
			for j := range ms {
				if len(ms[j].Text) > text {
					ms[j].Text, ms[j].Truncated = cutText(ms[j].Text, text), true
				}
			}
		}
		hits[i].Matches = ms
	}
	return hits
}

// cutText returns s cut to at most n bytes, at the last space if there is
// one in the second half, else at a rune boundary, with " …" added.
func cutText(s string, n int) string {
	cut := n
	if sp := strings.LastIndexAny(s[:n+1], " \n"); sp >= n/2 {
		cut = sp
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " \n") + " …"
}
