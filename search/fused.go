package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/pagestats"
)

// FusedWeights are the weights of fused mode: reciprocal rank fusion of
// the semantic ranking with field-aware keyword channels (BM25 over
// chunks of one kind each, and over whole pages) and the commands the
// request names.
type FusedWeights struct {
	Semantic float64 `json:"semantic"`
	Keyword  float64 `json:"keyword"` // BM25 over every chunk (hybrid's keyword channel)
	Summary  float64 `json:"summary"` // BM25 over NAME/summary chunks alone
	Option   float64 `json:"option"`  // BM25 over option chunks alone
	Example  float64 `json:"example"` // BM25 over example chunks alone
	Section  float64 `json:"section"` // BM25 over other sections' chunks alone
	Page     float64 `json:"page"`    // BM25 over whole pages (one document per command)
	Named    float64 `json:"named"`   // commands the request names (bm25.Named)
	// RRFK is fusion's k: a larger one flattens the gap between ranks.
	RRFK float64 `json:"rrf_k"`
	// SemSummaryBonus and SemSupport replace semanticRule's weights in the
	// semantic channel's aggregation of chunks into commands.
	SemSummaryBonus float64 `json:"sem_summary_bonus"`
	SemSupport      float64 `json:"sem_support"`
	// Subcommand is taken off a subcommand page's fused score (git-mv(1)
	// must match better than mv(1) to come first): learned mode's
	// subcommand feature at weight -Subcommand.
	Subcommand float64 `json:"subcommand"`
}

// DefaultFused is fused mode's weights, chosen on the TRAIN part of the
// NL2Bash split alone (BENCHMARKS.md, "Ranking levers, issue #18"): a
// grid over the channels' weights, rrf_k and the semantic aggregation,
// then the middle of the plateau of best hit@1 and MRR@10 rather than its
// single best cell (one request is 0.26 points there). The chunk-level
// keyword channel and the option, example and other-section channels
// each lowered hit@1 on train, so they weigh 0; a prior on a command's
// page length did not help either. Subcommand, 0.03, is the middle of
// the plateau of MRR@10 on both train sets (0.02 to 0.05) once the index
// held subcommand pages (BENCHMARKS.md, "Subcommand pages").
var DefaultFused = FusedWeights{Semantic: 1, Summary: 0.3, Page: 0.3, Named: 0.2, RRFK: 10,
	SemSummaryBonus: 0.15, SemSupport: supportWeight, Subcommand: 0.03}

// fusedPool is how many BM25 chunks the field channels split between
// them: each kind needs enough of its own chunks to rank commands, and
// the best chunks overall are mostly of one kind.
const fusedPool = 2000

// fused ranks by FusedWeights (w, or DefaultFused when w is nil).
func (s Searcher) fused(ctx context.Context, request string, k, pool int) ([]CommandHit, []float32, error) {
	w := DefaultFused
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
func (s Searcher) bm25Rankings(request string, pool int) (all []CommandHit, byKind map[index.Kind][]CommandHit) {
	var allChunks []chunk
	kinds := map[index.Kind][]chunk{}
	for i, h := range s.Keywords.Search(request, max(pool, fusedPool)) {
		text, md := s.Keywords.Chunk(h.Doc)
		m := Match{ID: h.ID, Kind: md.Kind, Section: md.Section, Option: md.Option, Score: h.Score, BM25: h.Score, Text: text}
		c := chunk{command: h.Command, md: md, match: m}
		if i < pool {
			allChunks = append(allChunks, c)
		}
		kinds[md.Kind] = append(kinds[md.Kind], c)
	}
	byKind = make(map[index.Kind][]CommandHit, len(kinds))
	for kind, chunks := range kinds {
		byKind[kind] = aggregate(chunks, keywordRule, pool)
	}
	return aggregate(allChunks, keywordRule, len(allChunks)), byKind
}

// pageRanking ranks commands by BM25 over their whole pages: every chunk
// of a command as one document. Its hits carry no matches: the command's
// details come from the other channels.
func pageRanking(kw *bm25.Index, request string, n int) []CommandHit {
	var out []CommandHit
	for _, h := range pagestats.Pages(kw).Search(request, n) {
		out = append(out, CommandHit{Command: h.Command})
	}
	return out
}

// ParseFusedWeights reads weights written as JSON (FusedWeights' field
// names); a field left out keeps DefaultFused's value. For tuning on a
// train split (`index eval --fused-weights`), never on the figures
// reported.
func ParseFusedWeights(s string) (FusedWeights, error) {
	w := DefaultFused
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return w, fmt.Errorf("fused weights %q: %v (want JSON such as {\"page\": 0.5, \"rrf_k\": 20}; fields: semantic, keyword, summary, option, example, section, page, named, rrf_k, sem_summary_bonus, sem_support, subcommand)", s, err)
	}
	for name, v := range map[string]float64{"semantic": w.Semantic, "keyword": w.Keyword, "summary": w.Summary, "option": w.Option,
		"example": w.Example, "section": w.Section, "page": w.Page, "named": w.Named, "rrf_k": w.RRFK,
		"sem_summary_bonus": w.SemSummaryBonus, "sem_support": w.SemSupport, "subcommand": w.Subcommand} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return w, fmt.Errorf("fused weights: %s is %v: weights are 0 or more", name, v)
		}
	}
	return w, nil
}
