package search

import (
	"context"

	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/shown"
)

// OptionWeights are the option ranker's weights: s.Options, else
// optrank.Default.
func (s Searcher) OptionWeights() optrank.Weights {
	if s.Options != nil {
		return *s.Options
	}
	return optrank.Default
}

// chooseOptions ranks each answered command's option and example records
// for the request (package optrank) and puts the ones that do what was
// asked first among its matches, counted in Chosen (which Compact keeps).
// Without the request's vector (keyword mode, an answer from disk) the
// keyword ranking's matches answer: the weights were fitted with cosines.
func (s Searcher) chooseOptions(ctx context.Context, request string, vec []float32, hits []shown.CommandHit) ([]shown.CommandHit, error) {
	if s.NoOptionRank || vec == nil || s.Keywords == nil || !s.Keywords.HasChunks() || len(hits) == 0 {
		return hits, nil
	}
	cmds := make([]string, len(hits))
	for i, h := range hits {
		cmds[i] = h.Command
	}
	chosen, err := s.OptionWeights().ChooseFor(ctx, s.Keywords, s.Coll, s.KeywordDir, request, vec, cmds)
	if err != nil {
		return nil, err
	}
	for i := range hits {
		rs := chosen[hits[i].Command]
		ms, seen := make([]shown.Match, 0, len(hits[i].Matches)+len(rs)), map[string]bool{}
		for _, r := range rs {
			// its score is its cosine, as a semantic match's (the
			// ranker's own is on no scale a reader knows); 0 unknown
			score := 0.0
			if r.Cos > 0 { // false for NaN, which JSON cannot carry
				score = r.Cos
			}
			ms = append(ms, shown.Match{ID: r.ID, Kind: r.Kind, Section: r.Section, Option: r.Option, Score: score, Text: r.Text})
			seen[r.ID] = true
		}
		for _, m := range hits[i].Matches {
			if !seen[m.ID] {
				ms = append(ms, m)
			}
		}
		hits[i].Matches, hits[i].Chosen = ms, len(rs)
	}
	return hits, nil
}
