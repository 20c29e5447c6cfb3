package search

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/descvec"
	"github.com/cmdai/cmdai/search/pagestats"
	"github.com/cmdai/cmdai/search/ranker"
	"github.com/cmdai/cmdai/search/shown"
)

// Learned mode scores the commands fused mode's channels bring up by a
// linear function of their features (package ranker says which, and how
// the weights were fitted).

// LearnedPool is the fewest chunks learned mode asks each channel for,
// whatever k: the features (ranks, gaps) are those its weights were
// fitted on (`index eval --features`, k 10).
const LearnedPool = 200

// Candidate is one command a request brought up, with its features.
type Candidate struct {
	Hit      shown.CommandHit
	Features map[string]float64
}

// learned ranks by the linear score of each candidate's features.
func (s Searcher) learned(ctx context.Context, request string, k, pool int) ([]shown.CommandHit, []float32, error) {
	w := s.learnedWeights()
	cands, vec, err := s.candidates(ctx, request, pool)
	if err != nil {
		return nil, nil, err
	}
	for i := range cands {
		cands[i].Hit.Score = w.Score(cands[i].Features)
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Hit.Score > cands[j].Hit.Score })
	out := make([]shown.CommandHit, 0, k)
	for _, c := range cands[:min(k, len(cands))] {
		out = append(out, c.Hit)
	}
	return out, vec, nil
}

// Candidates are the commands any of fused mode's channels brings up for
// the request (those with a chunk to show), each with its features, in
// no particular order.
func (s Searcher) Candidates(ctx context.Context, request string, pool int) ([]Candidate, error) {
	cands, _, err := s.candidates(ctx, request, pool)
	return cands, err
}

// candidates is Candidates, with the request's vector.
func (s Searcher) candidates(ctx context.Context, request string, pool int) ([]Candidate, []float32, error) {
	if err := s.keywordsReady(ModeLearned); err != nil {
		return nil, nil, err
	}
	finishRerank := s.rerankStart(ctx, request)
	vecs, err := s.Embedder.Embed(ctx, []string{request})
	if err != nil {
		return nil, nil, err
	}
	vec := vecs[0]
	hits, err := s.nearest(ctx, vec, pool)
	if err != nil {
		return nil, nil, err
	}
	descs, err := descvec.Of(ctx, s.Keywords, s.Embedder, s.KeywordDir)
	if err != nil {
		return nil, nil, err
	}
	sims := descs.Similarities(vec)
	sem := groupBy(hits, rule{summaryBonus: ranker.DefaultFused.SemSummaryBonus, support: ranker.DefaultFused.SemSupport, priority: semanticRule.priority}, pool)
	all, byKind := s.bm25Rankings(request, pool)
	pages := pagestats.Pages(s.Keywords).Search(request, pool)
	pageHits := make([]shown.CommandHit, len(pages))
	for i, h := range pages {
		pageHits[i] = shown.CommandHit{Command: h.Command, Score: h.Score}
	}
	channels := map[string][]shown.CommandHit{
		"semantic": sem, "summary": byKind[index.KindSummary], "keyword": all,
		"option": byKind[index.KindOption], "example": byKind[index.KindExample], "section": byKind[index.KindSection],
		"page": pageHits, "named": namedHits(s.Keywords.Named(request)),
	}
	var rs []ranking
	n := 0
	for _, c := range ranker.Channels {
		rs = append(rs, ranking{channels[c], 1})
		n += len(channels[c])
	}
	union := fuseK(n, ranker.RRFK, rs...)
	bestChunk := 0.0
	if len(hits) > 0 {
		bestChunk = 1 - hits[0].Distance
	}
	pos := map[string]map[string]int{} // channel -> command -> 1-based rank
	for c, hs := range channels {
		pos[c] = make(map[string]int, len(hs))
		for i, h := range hs {
			pos[c][h.Command] = i + 1
		}
	}
	// score and top are a command's score in a channel and the channel's
	// best (NaN when absent: ranker.Gap and ranker.Rel floor them)
	score := func(c, cmd string) float64 {
		if r := pos[c][cmd]; r > 0 {
			return channels[c][r-1].Score
		}
		return math.NaN()
	}
	top := func(c string) float64 {
		if len(channels[c]) == 0 {
			return math.NaN()
		}
		return channels[c][0].Score
	}
	semSummaryRank, commandFeatures := summaryRanks(hits), pagestats.Features(s.Keywords)
	out := make([]Candidate, len(union))
	descSims := make([]float64, len(union))
	for i, h := range union {
		f := map[string]float64{}
		for _, c := range ranker.Channels {
			if r := pos[c][h.Command]; r > 0 {
				f["rr_"+c] = 1 / float64(ranker.RRFK+r)
			}
		}
		f[ranker.SemGap] = ranker.Gap(score("semantic", h.Command), top("semantic"))
		f[ranker.SummaryGap] = ranker.Gap(bestSummaryCosine(h.Matches), bestChunk)
		f[ranker.PageRel] = ranker.Rel(score("page", h.Command), top("page"))
		f[ranker.SummaryRel] = ranker.Rel(score("summary", h.Command), top("summary"))
		f[ranker.NameDot] = ranker.Bool(strings.Contains(h.Command, "."))
		f[ranker.NameVer] = ranker.Bool(ranker.HasVersion(h.Command))
		f[ranker.Section8] = ranker.Bool(strings.HasPrefix(h.ManSection, "8"))
		f[ranker.Subcommand] = ranker.Bool(h.Parent != "")
		commandFeatures(f, h.Command)
		if r := semSummaryRank[h.Command]; r > 0 {
			f[ranker.SemSummary] = 1 / float64(ranker.RRFK+r)
		}
		out[i] = Candidate{Hit: h, Features: f}
		descSims[i] = sims[h.Command]
	}
	setAmongCandidates(out, descSims, ranker.DescGap, ranker.DescRank)
	if err := s.addAdapterFeatures(out, vec, descs); err != nil {
		return nil, nil, err
	}
	if err := finishRerank(out); err != nil {
		return nil, nil, err
	}
	return out, vec, nil
}

// summaryRanks ranks commands by their nearest summary chunk alone
// (1-based; hits nearest first).
func summaryRanks(hits []chroma.Hit) map[string]int {
	rank := map[string]int{}
	for _, h := range hits {
		if md := metaOf(h.Record); md.Kind == index.KindSummary && rank[md.Command] == 0 {
			rank[md.Command] = len(rank) + 1
		}
	}
	return rank
}

// bestSummaryCosine is the best cosine of a semantic summary match (NaN
// when there is none: keyword matches carry BM25 scores, not cosines).
func bestSummaryCosine(ms []shown.Match) float64 {
	best := math.NaN()
	for _, m := range ms {
		if m.Kind == index.KindSummary && m.BM25 == 0 && (math.IsNaN(best) || m.Score > best) {
			best = m.Score
		}
	}
	return best
}
