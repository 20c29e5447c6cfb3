package answer

import (
	"context"
	"math"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/shown"
)

// NarrowDoc narrows a command's documentation to a request (when the doc
// came, err nil, and a request was given), the same way at every door,
// from the index or from disk: its option and example records ranked for
// the request by s's option ranker (package optrank), the ones that do it
// first among Records (the rest after, in the doc's order), counted in
// Chosen. The request is embedded when s has an embedder and the records'
// cosines read from s's collection; a Searcher without them (a doc read
// from disk) ranks by the records' words.
func NarrowDoc(ctx context.Context, s search.Searcher, doc search.CommandDoc, err error, request string) (search.CommandDoc, error) {
	request = strings.TrimSpace(request)
	if err != nil || request == "" || s.NoOptionRank {
		return doc, err
	}
	var cos map[string]float64
	if s.Embedder != nil {
		vecs, err := s.Embedder.Embed(ctx, []string{request})
		if err != nil {
			return doc, err
		}
		ids := make([]string, 0, len(doc.Records))
		for _, r := range doc.Records {
			if r.Kind == index.KindOption || r.Kind == index.KindExample {
				ids = append(ids, r.ID)
			}
		}
		if cos, err = optrank.Cosines(ctx, s.Keywords, s.Coll, s.KeywordDir, vecs[0], ids); err != nil {
			return doc, err
		}
	}
	recs := make([]optrank.Chunk, len(doc.Records))
	byID := make(map[string]shown.Match, len(doc.Records))
	for i, r := range doc.Records {
		recs[i] = optrank.Chunk{ID: r.ID, Kind: r.Kind, Section: r.Section, Option: r.Option, Text: r.Text}
		byID[r.ID] = r
	}
	page := optrank.NewPage(recs, optrank.Common(s.Keywords), func(id string) float64 {
		if v, ok := cos[id]; ok {
			return v
		}
		return math.NaN()
	})
	w := s.OptionWeights()
	ranked := w.Rank(s.Keywords, request, page)
	n := w.Choose(ranked)
	out := make([]shown.Match, 0, len(doc.Records))
	seen := map[string]bool{}
	for _, r := range ranked[:n] {
		out = append(out, byID[r.ID])
		seen[r.ID] = true
	}
	for _, r := range doc.Records {
		if !seen[r.ID] {
			out = append(out, r)
		}
	}
	doc.Records, doc.Chosen = out, n
	return doc, nil
}
