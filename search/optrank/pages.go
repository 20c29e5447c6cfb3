package optrank

import (
	"context"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/recvec"
)

// maxRecords bounds the records whose vectors one request reads from a
// collection by id (a few commands' pages; a page of thousands of
// options is ranked by its other features past it).
const maxRecords = 4000

// VectorGetter is a collection that gives records' vectors by id
// (chroma.Collection.Embeddings): a lookup by key for the server, the
// cosines computed here.
type VectorGetter interface {
	Embeddings(ctx context.Context, ids []string) (map[string][]float32, error)
}

// Pages are the commands' pages as the ranker reads them (PageOf), each
// record with its cosine to the request's vector vec (Cosines; nil
// vec: unknown).
func Pages(ctx context.Context, kw *bm25.Index, coll any, dir string, vec []float32, commands []string) (map[string]Page, error) {
	out := make(map[string]Page, len(commands))
	var ids []string
	for _, c := range commands {
		p := PageOf(kw, c, nil)
		out[c] = p
		for _, r := range p.Records {
			ids = append(ids, r.ID)
		}
	}
	cos, err := Cosines(ctx, kw, coll, dir, vec, ids)
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

// Cosines are the cosines of the records ids with the request's vector:
// from the vectors of every option and example record kept beside kw in
// dir (recvec, read from coll once per index build), else read from coll
// by id for this request (nil without a vector, or from a collection
// that gives none).
func Cosines(ctx context.Context, kw *bm25.Index, coll any, dir string, vec []float32, ids []string) (map[string]float64, error) {
	if vec == nil || len(ids) == 0 {
		return nil, nil // (a read of no ids would be a read of them all)
	}
	if src, ok := coll.(recvec.Source); ok && dir != "" && kw != nil {
		vs, err := recvec.Of(ctx, kw, src, dir)
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
	g, ok := coll.(VectorGetter)
	if !ok {
		return nil, nil
	}
	vs, err := g.Embeddings(ctx, ids[:min(len(ids), maxRecords)])
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

// ChooseFor ranks the option and example records of each of commands
// (their pages in kw, cosines as Pages gives them) for the request, and
// returns per command the ones an answer shows, best first (Choose).
func (w Weights) ChooseFor(ctx context.Context, kw *bm25.Index, coll any, dir, request string, vec []float32, commands []string) (map[string][]Ranked, error) {
	pages, err := Pages(ctx, kw, coll, dir, vec, commands)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]Ranked, len(pages))
	for c, p := range pages {
		ranked := w.Rank(kw, request, p)
		out[c] = ranked[:w.Choose(ranked)]
	}
	return out, nil
}
