package evalcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/evaluate"
)

// featureLine is one request of a --features file: every command learned
// mode considered for it, with its features and whether it is the one
// expected.
type featureLine struct {
	Query      string             `json:"query"`
	Command    string             `json:"command"`
	Candidates []featureCandidate `json:"candidates"`
}

type featureCandidate struct {
	Command  string             `json:"command"`
	Expected bool               `json:"expected,omitempty"`
	Features map[string]float64 `json:"features"`
}

// writeFeatures writes learned mode's candidates per request whose
// command is indexed.
func writeFeatures(ctx context.Context, s search.Searcher, queries []evaluate.EvalQuery, path string) error {
	return writePerRequest("--features", path, s, queries, func(q evaluate.EvalQuery, want string) (any, error) {
		cands, err := s.Candidates(ctx, q.Text(), search.LearnedPool)
		if err != nil {
			return nil, err
		}
		line := featureLine{Query: q.Text(), Command: want}
		for _, c := range cands {
			line.Candidates = append(line.Candidates, featureCandidate{Command: c.Hit.Command, Expected: c.Hit.Command == want || c.Hit.Parent == want, Features: c.Features})
		}
		return line, nil
	})
}

// writePerRequest writes one JSON line per request whose command is
// indexed (want: the command's name in the index), atomically: a failed
// run leaves no half file.
func writePerRequest(flag, path string, s search.Searcher, queries []evaluate.EvalQuery, line func(q evaluate.EvalQuery, want string) (any, error)) error {
	err := safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, q := range queries {
			want, ok := s.Keywords.Command(q.Command)
			if !ok {
				continue
			}
			v, err := line(q, want)
			if err != nil {
				return err
			}
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w: check the path and free space", flag, path, err)
	}
	return nil
}
