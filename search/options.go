package search

import (
	"context"
	"math"
	"strings"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/recvec"
)

// maxOptionRecords bounds the records whose cosine one answer asks
// Chroma for (a few commands' pages; a page of thousands of options is
// ranked by its other features past it).
const maxOptionRecords = 4000

// vectorGetter is a Collection that gives records' vectors by id
// (chroma.Collection.Embeddings): the option ranker's cosines computed
// here, a lookup by key for the server where a filtered query scans.
type vectorGetter interface {
	Embeddings(ctx context.Context, ids []string) (map[string][]float32, error)
}

// optionWeights are the option ranker's weights: s.Options, else
// optrank.Default.
func (s Searcher) optionWeights() optrank.Weights {
	if s.Options != nil {
		return *s.Options
	}
	return optrank.Default
}

// chooseOptions ranks each answered command's option and example records
// for the request (package optrank) and puts the ones that do what was
// asked first among its matches, marking how many an answer shows
// (Chosen, which Compact keeps). vec is the request's vector (nil:
// ranked without cosines, as an answer from the keyword index alone is).
func (s Searcher) chooseOptions(ctx context.Context, request string, vec []float32, hits []CommandHit) ([]CommandHit, error) {
	// without the request's vector (keyword mode, an answer from disk)
	// the keyword ranking's own matches answer: the ranker's weights
	// were fitted with cosines
	if s.NoOptionRank || vec == nil || s.Keywords == nil || !s.Keywords.HasChunks() || len(hits) == 0 {
		return hits, nil
	}
	cmds := make([]string, len(hits))
	for i, h := range hits {
		cmds[i] = h.Command
	}
	pages, err := s.OptionPages(ctx, vec, cmds)
	if err != nil {
		return nil, err
	}
	w := s.optionWeights()
	for i := range hits {
		page := pages[hits[i].Command]
		ranked := w.Rank(s.Keywords, request, page)
		n := w.Choose(ranked)
		if n == 0 {
			continue // no options or examples: the matches it has answer
		}
		chosen := make([]Match, 0, len(hits[i].Matches)+n)
		seen := map[string]bool{}
		for _, r := range ranked[:n] {
			_, md := s.Keywords.Chunk(mustLookup(s, r.ID))
			// its score is its cosine, as a semantic match's is (the
			// ranker's own score is on no scale a reader knows)
			score := r.Cos
			if math.IsNaN(score) {
				score = 0
			}
			chosen = append(chosen, Match{ID: r.ID, Kind: r.Kind, Section: md.Section, Option: md.Option, Score: score, Text: r.Text})
			seen[r.ID] = true
		}
		for _, m := range hits[i].Matches {
			if !seen[m.ID] {
				chosen = append(chosen, m)
			}
		}
		hits[i].Matches, hits[i].Chosen = chosen, n
	}
	return hits, nil
}

// mustLookup is the keyword index position of a record PageOf read from
// it (so known).
func mustLookup(s Searcher, id string) int {
	doc, _ := s.Keywords.Lookup(id)
	return doc
}

// OptionPages are the commands' pages as the option ranker reads them
// (optrank.PageOf), each record with its cosine to the request vector
// vec (nil: unknown).
func (s Searcher) OptionPages(ctx context.Context, vec []float32, commands []string) (map[string]optrank.Page, error) {
	out := make(map[string]optrank.Page, len(commands))
	var ids []string
	for _, c := range commands {
		p := optrank.PageOf(s.Keywords, c, nil)
		out[c] = p
		for _, r := range p.Records {
			ids = append(ids, r.ID)
		}
	}
	cos, err := s.recordCosines(ctx, vec, ids)
	if err != nil || cos == nil {
		return out, err
	}
	for _, p := range out {
		for i := range p.Records {
			if v, ok := cos[p.Records[i].ID]; ok {
				p.Records[i].Cos = v
			}
		}
	}
	return out, nil
}

// recordCosines are the cosines of the records ids with the request's
// vector: from the vectors of every option and
// example record kept beside the keyword index (recvec), else read by id
// for this request (nil without a vector, or from a collection that
// gives none).
func (s Searcher) recordCosines(ctx context.Context, vec []float32, ids []string) (map[string]float64, error) {
	if vec == nil {
		return nil, nil
	}
	if src, ok := s.Coll.(recvec.Source); ok && s.KeywordDir != "" && s.Keywords != nil {
		// every option and example vector, read once per index build
		vs, err := recvec.Of(ctx, s.Keywords, src, s.KeywordDir)
		if err != nil {
			return nil, err
		}
		out := make(map[string]float64, len(ids))
		for _, id := range ids {
			if c, ok := vs.Cosine(id, vec); ok {
				out[id] = c
			}
		}
		return out, nil
	}
	g, ok := s.Coll.(vectorGetter)
	if !ok {
		return nil, nil
	}
	if len(ids) > maxOptionRecords {
		ids = ids[:maxOptionRecords]
	}
	vs, err := g.Embeddings(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(vs))
	for id, v := range vs {
		if len(v) == len(vec) {
			out[id] = embed.Cosine(vec, v)
		}
	}
	return out, nil
}

// ForRequest narrows a command's documentation to a request: its option
// and example records ranked for it (package optrank), the ones that do
// it first among Records (the rest after, in the doc's order), counted
// in Chosen. The request is embedded when s has an
// embedder and the cosines asked of a collection that can filter; else
// the records are ranked by their words alone (a doc read from disk).
func (s Searcher) ForRequest(ctx context.Context, doc CommandDoc, request string) (CommandDoc, error) {
	request = strings.TrimSpace(request)
	if request == "" || s.NoOptionRank {
		return doc, nil
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
		if cos, err = s.recordCosines(ctx, vecs[0], ids); err != nil {
			return doc, err
		}
	}
	recs := make([]optrank.Chunk, len(doc.Records))
	byID := make(map[string]Match, len(doc.Records))
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
	w := s.optionWeights()
	ranked := w.Rank(s.Keywords, request, page)
	n := w.Choose(ranked)
	out := make([]Match, 0, len(doc.Records))
	seen := map[string]bool{}
	for _, r := range ranked[:n] {
		m := byID[r.ID]
		out = append(out, m)
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
