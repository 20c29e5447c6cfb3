package search

import (
	"context"
	"fmt"

	"github.com/cmdai/cmdai/search/descvec"
	"github.com/cmdai/cmdai/search/ranker"
)

// rerankFeatures adds learned mode's reranker features to cands: the
// reranker's cosine between the request and each command's one-line
// description, as a gap to the best candidate's and a rank among them
// (ranker.RerankGap, ranker.RerankRank), the way desc_gap and rr_desc
// use the embedder's. The reranker is all-MiniLM-L6-v2 fine-tuned on the
// train requests (embed.RerankerName); its description vectors are
// embedded once per index and kept beside the embedder's.
func (s Searcher) rerankFeatures(ctx context.Context, request string, cands []Candidate) error {
	vecs, err := s.Reranker.Embed(ctx, []string{request})
	if err != nil {
		return fmt.Errorf("reranker: %w", err)
	}
	descs, err := descvec.Of(ctx, s.Keywords, s.Reranker, s.KeywordDir)
	if err != nil {
		return fmt.Errorf("reranker: %w", err)
	}
	sims := descs.Similarities(vecs[0])
	values := make([]float64, len(cands))
	for i, c := range cands {
		values[i] = sims[c.Hit.Command]
	}
	gaps, rrs := ranker.AmongCandidates(values)
	for i := range cands {
		cands[i].Features[ranker.RerankGap], cands[i].Features[ranker.RerankRank] = gaps[i], rrs[i]
	}
	return nil
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
