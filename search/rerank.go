package search

import (
	"context"
	"fmt"

	"github.com/cmdai/cmdai/search/adapter"
	"github.com/cmdai/cmdai/search/descvec"
	"github.com/cmdai/cmdai/search/ranker"
)

// rerankStart starts the reranker (embed.RerankerName) on the request in
// the background, to run while Chroma answers the semantic channel; the
// returned finish waits for it and gives the candidates its features,
// and those and the adapter's (set before) again for the commands they
// were trained toward (ranker.SetTrained); a no-op without a reranker.
// Its description vectors are embedded once per index and kept beside
// the embedder's.
func (s Searcher) rerankStart(ctx context.Context, request string) (finish func([]Candidate) error) {
	if s.Reranker == nil {
		return func([]Candidate) error { return nil }
	}
	var vec []float32
	var descs *descvec.Vectors
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		var vecs [][]float32
		if vecs, err = s.Reranker.Embed(ctx, []string{request}); err != nil {
			err = fmt.Errorf("reranker: %w", err)
			return
		}
		vec = vecs[0]
		if descs, err = descvec.Of(ctx, s.Keywords, s.Reranker, s.KeywordDir); err != nil {
			err = fmt.Errorf("reranker: %w", err)
		}
	}()
	return func(cands []Candidate) error {
		<-done
		if err != nil {
			return err
		}
		addCosineFeatures(cands, vec, descs, ranker.RerankGap, ranker.RerankRank)
		for i := range cands {
			ranker.SetTrained(cands[i].Features, cands[i].Hit.Command)
		}
		return nil
	}
}

// addCosineFeatures gives every candidate two features from a cosine
// between a request vector (vec) and the command's one-line description:
// its gap to the best candidate's and its rank among them
// (ranker.AmongCandidates), the way desc_gap and rr_desc use the
// embedder's: the reranker's (rerank_gap, rr_rerank) and the query
// adapter's (adesc_gap, rr_adesc).
func addCosineFeatures(cands []Candidate, vec []float32, descs *descvec.Vectors, gap, rank string) {
	commands := make([]string, len(cands))
	for i, c := range cands {
		commands[i] = c.Hit.Command
	}
	setAmongCandidates(cands, descs.SimilaritiesOf(vec, commands), gap, rank)
}

func setAmongCandidates(cands []Candidate, values []float64, gap, rank string) {
	gaps, rrs := ranker.AmongCandidates(values)
	for i := range cands {
		cands[i].Features[gap], cands[i].Features[rank] = gaps[i], rrs[i]
	}
}

// addAdapterFeatures gives the candidates the features of the query
// adapter the reranker carries, if any: the embedder's description
// cosines of the adapted request vector (the adapter was fitted on the
// embedder's vectors; the search itself keeps the raw one).
func (s Searcher) addAdapterFeatures(cands []Candidate, vec []float32, descs *descvec.Vectors) error {
	a := adapter.Of(s.Reranker)
	if a == nil {
		return nil
	}
	u, err := a.Apply(vec)
	if err != nil {
		return fmt.Errorf("query adapter: %w", err)
	}
	addCosineFeatures(cands, u, descs, ranker.AdaptGap, ranker.AdaptRank)
	return nil
}

// learnedWeights are the weights learned mode scores with: the caller's,
// else the defaults fitted with the features of the reranker and of the
// adapter it carries, of the reranker alone, or of neither.
func (s Searcher) learnedWeights() ranker.Weights {
	switch {
	case s.Learned != nil:
		return s.Learned
	case adapter.Of(s.Reranker) != nil:
		return ranker.WithAdapter
	case s.Reranker != nil:
		return ranker.WithReranker
	}
	return ranker.Default
}
