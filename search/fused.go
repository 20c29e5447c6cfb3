package search

import (
	"context"
	"sort"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/pagestats"
	"github.com/cmdai/cmdai/search/ranker"
	"github.com/cmdai/cmdai/search/shown"
)

// fusedPool is how many BM25 chunks the field channels split between
// them: each kind needs enough of its own chunks to rank commands, and
// the best chunks overall are mostly of one kind.
const fusedPool = 2000

// fused ranks by ranker.Fused (w, or ranker.DefaultFused when w is nil).
func (s Searcher) fused(ctx context.Context, request string, k, pool int) ([]shown.CommandHit, []float32, error) {
	w := ranker.DefaultFused
	if s.Weights != nil {
		w = *s.Weights
	}
	hits, vec, err := s.nearestTo(ctx, request, pool)
	if err != nil {
		return nil, nil, err
	}
	semRule := rule{summaryBonus: w.SemSummaryBonus, support: w.SemSupport, priority: semanticRule.priority}
	rs := []ranking{{groupBy(hits, semRule, pool), w.Semantic}}
	if w.Keyword > 0 || w.Summary > 0 || w.Option > 0 || w.Example > 0 || w.Section > 0 {
		all, byKind := s.bm25Rankings(request, pool)
		// in a fixed order: the first ranking holding a command gives its
		// details; a channel weighing 0 brings no command in
		for _, c := range []ranking{{all, w.Keyword}, {byKind[index.KindSummary], w.Summary},
			{byKind[index.KindOption], w.Option}, {byKind[index.KindExample], w.Example}, {byKind[index.KindSection], w.Section}} {
			if c.weight > 0 {
				rs = append(rs, c)
			}
		}
	}
	if w.Page > 0 {
		rs = append(rs, ranking{pageRanking(s.Keywords, request, pool), w.Page})
	}
	if w.Named > 0 {
		rs = append(rs, ranking{namedHits(s.Keywords.Named(request)), w.Named})
	}
	if w.Subcommand == 0 {
		return fuseK(k, w.RRFK, rs...), vec, nil
	}
	n := 0
	for _, r := range rs {
		n += len(r.hits)
	}
	out := fuseK(n, w.RRFK, rs...)
	for i := range out {
		if out[i].Parent != "" {
			out[i].Score -= w.Subcommand
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out[:min(k, len(out))], vec, nil
}

// bm25Rankings ranks commands by BM25 from one search: over every chunk
// (its best pool chunks, keywordRanking's ranking) and over each kind's
// chunks apart (the best fusedPool chunks, split by kind).
func (s Searcher) bm25Rankings(request string, pool int) (all []shown.CommandHit, byKind map[index.Kind][]shown.CommandHit) {
	var allChunks []chunk
	kinds := map[index.Kind][]chunk{}
	for i, h := range s.Keywords.Search(request, max(pool, fusedPool)) {
		text, md := s.Keywords.Chunk(h.Doc)
		m := shown.Match{ID: h.ID, Kind: md.Kind, Section: md.Section, Option: md.Option, Score: h.Score, BM25: h.Score, Text: text}
		c := chunk{command: h.Command, md: md, match: m}
		if i < pool {
			allChunks = append(allChunks, c)
		}
		kinds[md.Kind] = append(kinds[md.Kind], c)
	}
	byKind = make(map[index.Kind][]shown.CommandHit, len(kinds))
	for kind, chunks := range kinds {
		byKind[kind] = aggregate(chunks, keywordRule, pool)
	}
	return aggregate(allChunks, keywordRule, len(allChunks)), byKind
}

// pageRanking ranks commands by BM25 over their whole pages: every chunk
// of a command as one document. Its hits carry no matches: the command's
// details come from the other channels.
func pageRanking(kw *bm25.Index, request string, n int) []shown.CommandHit {
	var out []shown.CommandHit
	for _, h := range pagestats.Pages(kw).Search(request, n) {
		out = append(out, shown.CommandHit{Command: h.Command})
	}
	return out
}

// ParseFusedWeights reads fused weights written as JSON (ranker.ParseFused).
func ParseFusedWeights(s string) (ranker.Fused, error) { return ranker.ParseFused(s) }
