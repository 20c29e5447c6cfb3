package search

import (
	"context"
	"fmt"

	"github.com/cmdai/cmdai/search/descvec"
	"github.com/cmdai/cmdai/search/ranker"
)

// rerankStart starts the reranker (embed.RerankerName) on the request in
// the background, to run while Chroma answers the semantic channel; the
// returned finish waits for it and gives the candidates its features (a
// no-op without a reranker). Its description vectors are embedded once
// per index and kept beside the embedder's.
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
		addRerankFeatures(cands, vec, descs)
		return nil
	}
}

// addRerankFeatures gives every candidate learned mode's reranker
// features from the reranker's cosine between the request (vec) and the
// command's one-line description: its gap to the best candidate's and
// its rank among them (ranker.RerankGap, ranker.RerankRank), the way
// desc_gap and rr_desc use the embedder's.
func addRerankFeatures(cands []Candidate, vec []float32, descs *descvec.Vectors) {
	commands := make([]string, len(cands))
	for i, c := range cands {
		commands[i] = c.Hit.Command
	}
	gaps, rrs := ranker.AmongCandidates(descs.SimilaritiesOf(vec, commands))
	for i := range cands {
		cands[i].Features[ranker.RerankGap], cands[i].Features[ranker.RerankRank] = gaps[i], rrs[i]
	}
}

// learnedWeights are the weights learned mode scores with: the caller's,
// else the defaults fitted with the reranker's features when it is there,
// else those fitted without them (learned mode as before the reranker).
func (s Searcher) learnedWeights() ranker.Weights {
	switch {
	case s.Learned != nil:
		return s.Learned
	case s.Reranker != nil:
		return ranker.WithReranker
	}
	return ranker.Default
}
