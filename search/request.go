package search

import (
	"context"
	"fmt"
)

// DefaultMatches is how many matches of each command an answer shows
// unless asked for more: an assistant picks a command from its
// description and its best two or three chunks (the option or example
// that answers); the 20-odd others of a long page cost it thousands of
// tokens and change nothing (BENCHMARKS.md, "bytes per answer").
const DefaultMatches = 3

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
	hits, err := s.Search(ctx, req.Query, req.K, req.Mode)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Commands: TrimMatches(hits, req.Matches)}, nil
}

// AnswerFromDisk answers the request when Chroma cannot be reached (cause):
// by keyword ranking over the collection's keyword index as last saved in
// dir, so that an assistant still gets an answer. The answer says it is
// degraded and why. A strict request, or one with no keyword index on
// disk, gets cause back (wrapped, with what else went wrong), so that the
// caller keeps its exit code.
func AnswerFromDisk(ctx context.Context, dir, collection string, req Request, cause error) (Answer, error) {
	if req.Strict {
		return Answer{}, cause
	}
	ix, path, err := SavedKeywordIndex(dir, collection)
	if err != nil {
		return Answer{}, fmt.Errorf("%w\n  and no answer from disk either: %v", cause, err)
	}
	req.Mode = ModeKeyword
	a, err := Searcher{Keywords: ix}.Answer(ctx, req)
	if err != nil {
		return Answer{}, err
	}
	a.Degraded = fmt.Sprintf("Chroma unavailable (%s): keyword-only answer from %s", firstLine(cause.Error()), path)
	return a, nil
}

// TrimMatches keeps the first n matches of each command (0:
// DefaultMatches; below 0: all): they are already in the ranking's order.
func TrimMatches(hits []CommandHit, n int) []CommandHit {
	switch {
	case n == 0:
		n = DefaultMatches
	case n < 0:
		return hits
	}
	for i := range hits {
		if len(hits[i].Matches) > n {
			hits[i].Matches = hits[i].Matches[:n:n]
		}
	}
	return hits
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
