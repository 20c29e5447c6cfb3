package evalcmd

import (
	"context"
	"strings"

	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/evaluate"
)

// vectorLine is one request of a --vectors file: its embedding as the
// index's model gives it (what
// scripts/research/train-adapter.py fits a query adapter on).
type vectorLine struct {
	Query   string    `json:"query"`
	Command string    `json:"command"`
	Vector  []float32 `json:"vector"`
}

// writeVectors writes the vector of each request whose command is
// indexed, embedded as Search embeds it (trimmed).
func writeVectors(ctx context.Context, s search.Searcher, queries []evaluate.EvalQuery, path string) error {
	return writePerRequest("--vectors", path, s, queries, func(q evaluate.EvalQuery, want string) (any, error) {
		vecs, err := s.Embedder.Embed(ctx, []string{strings.TrimSpace(q.Text())})
		if err != nil {
			return nil, err
		}
		return vectorLine{Query: q.Text(), Command: want, Vector: vecs[0]}, nil
	})
}
