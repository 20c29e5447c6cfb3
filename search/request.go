package search

import (
	"context"

	"github.com/cmdai/cmdai/search/shown"
)

// Request is one question to the index and how to answer it: what
// `index query` and every other front end (serve, MCP) fill in.
type Request struct {
	Query string
	// K is how many commands to return (0: 5).
	K    int
	Mode Mode
	// Matches is how many matches to keep per command, in the order the
	// ranking gives them (0: shown.DefaultMatches; below 0: all). The ranking
	// uses them all either way.
	Matches int
	// MatchText is how many bytes of each match's text to keep, cut at a
	// word (0: shown.DefaultMatchText; below 0: all of it).
	MatchText int
	// Strict refuses to answer from the keyword index on disk when Chroma
	// cannot be reached (AnswerFromDisk): the caller gets the error.
	Strict bool
}

// Answer is what a request gets back.
type Answer struct {
	Commands []shown.CommandHit
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

// Compact keeps the first matches of each command and cuts their texts
// (shown.Compact).
func Compact(hits []shown.CommandHit, matches, text int) []shown.CommandHit {
	return shown.Compact(hits, matches, text)
}
