package answer

import (
	"context"
	"errors"
	"math"
	"os/exec"
	"time"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
)

// SearchRequest is the search a query asks for, one-shot or in serve:
// with_context and full keep every match (render.Context picks from them
// all by its budget), else the best matches, their text cut. A mode
// that names none is a usage error (exit 2).
func SearchRequest(q QueryRequest) (search.Request, error) {
	mode, err := search.ParseMode(q.Mode)
	if err != nil {
		return search.Request{}, exitcode.With(exitcode.Usage, err)
	}
	req := search.Request{Query: q.Request, K: q.K, Mode: mode, Matches: q.Matches, Strict: q.Strict}
	if q.Context || q.Full {
		req.Matches, req.MatchText = -1, -1
	}
	return req, nil
}

// Search runs one search on s and times it: what one-shot queries,
// serve and the MCP server answer alike.
func Search(ctx context.Context, s search.Searcher, req search.Request) (QueryResult, error) {
	start := time.Now()
	a, err := s.Answer(ctx, req)
	if err != nil {
		return QueryResult{}, err
	}
	return result(req.Query, s.Coll.Name(), a, start), nil
}

func result(request, collection string, a search.Answer, start time.Time) QueryResult {
	ms := float64(time.Since(start).Microseconds()) / 1000
	return QueryResult{Request: request, Collection: collection, Commands: a.Commands, Millis: ms,
		Degraded: a.Degraded != "", DegradedReason: a.Degraded, NoCloseMatch: a.NoCloseMatch, Closeness: math.Round(a.Closeness*1e4) / 1e4}
}

// Judge explains line by lookup and times it: what a one-shot explain,
// serve and the MCP server answer alike. A line the shell cannot parse
// is a usage error (exit 2) saying where and what to fix.
func Judge(ctx context.Context, line, collection string, lookup explain.Lookup, onPath func(string) bool, start time.Time) (ExplainResult, error) {
	r, err := explain.Explain(ctx, line, lookup, explain.Options{OnPath: onPath})
	if errors.Is(err, explain.ErrBadLine) {
		return ExplainResult{}, exitcode.With(exitcode.Usage, err)
	}
	if err != nil {
		return ExplainResult{}, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	return ExplainResult{Result: r, Collection: collection, Millis: ms}, nil
}

// OnPath is a $PATH lookup on this machine when the index that judges is
// this machine's own distribution's, else nil: an imported index of
// another distribution says nothing of what is installed here, and a
// command it lacks is then "not installed" there, not "undocumented"
// because of this machine's PATH.
func OnPath(ctx context.Context, info distro.Info) func(string) bool {
	here, err := distro.Detect(ctx)
	if err != nil || here.CollectionName() != info.CollectionName() {
		return nil
	}
	return func(name string) bool {
		_, err := exec.LookPath(name)
		return err == nil
	}
}
