package search

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/ranker"
	"github.com/cmdai/cmdai/search/recvec"
	"github.com/cmdai/cmdai/search/shown"
)

// Mode chooses how Search ranks.
type Mode string

// Retrieval modes.
const (
	ModeSemantic Mode = "semantic" // nearest chunks by embedding
	ModeKeyword  Mode = "keyword"  // BM25 over the chunks, and commands named in the request
	ModeHybrid   Mode = "hybrid"   // both, fused by reciprocal rank
	ModeFused    Mode = "fused"    // semantic, field-aware keyword channels and named commands (ranker.Fused)
	ModeLearned  Mode = "learned"  // fused mode's channels as features of a linear score (LearnedWeights)
)

// DefaultMode is the mode of a request that names none (CLI, serve, MCP).
const DefaultMode = ModeLearned

// ParseMode reads a --mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeSemantic, ModeKeyword, ModeHybrid, ModeFused, ModeLearned:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: use semantic, keyword, hybrid, fused or learned", s)
}

// Searcher answers requests against one index.
type Searcher struct {
	Coll     Collection
	Embedder embed.Embedder // for semantic and hybrid
	Keywords *bm25.Index    // for keyword, hybrid and fused
	// Weights are fused mode's; nil means ranker.DefaultFused.
	Weights *ranker.Fused
	// Learned are learned mode's; nil means DefaultLearned.
	Learned ranker.Weights
	// KeywordDir is where the keyword index lives: learned mode keeps
	// the commands' description vectors there (empty: in memory only).
	KeywordDir string
	// Reranker, when set, is learned mode's second model: its cosine
	// between request and description is two more features, scored by
	// ranker.WithReranker (nil: learned mode as before it); with the query
	// adapter it carries (adapter.Attach), two more, ranker.WithAdapter.
	Reranker embed.Embedder
	// Options are the option ranker's weights (nil: optrank.Default);
	// NoOptionRank answers without it, each command's matches in the
	// command ranking's order (what answers were before it).
	Options      *optrank.Weights
	NoOptionRank bool
}

// Reciprocal rank fusion: a command's fused score is the sum over the
// rankings that hold it of weight / (rrfK + rank). The semantic ranking
// weighs 1; the keyword ranking and the commands the request names
// outright ("with rsync": names are also words, "find", "head") weigh
// 0.3 each, the best of five settings on the NL2Bash queries
// (BENCHMARKS.md).
const (
	rrfK          = 60
	keywordWeight = 0.3
	nameWeight    = 0.3
)

// Search returns the k best commands for the request in the given mode.
func (s Searcher) Search(ctx context.Context, request string, k int, mode Mode) ([]shown.CommandHit, error) {
	hits, _, err := s.searchVec(ctx, request, k, mode)
	return hits, err
}

// searchVec is Search, with the request's vector (nil in keyword mode,
// which embeds nothing).
func (s Searcher) searchVec(ctx context.Context, request string, k int, mode Mode) ([]shown.CommandHit, []float32, error) {
	request = strings.TrimSpace(request)
	if request == "" {
		return nil, nil, fmt.Errorf("empty request: say what you want to do, e.g. \"find files modified today\"")
	}
	if k <= 0 {
		k = 5
	}
	pool := max(minChunks, k*chunksPerCommand)
	if mode == ModeFused {
		if err := s.keywordsReady(mode); err != nil {
			return nil, nil, err
		}
		return s.fused(ctx, request, k, pool)
	}
	if mode == ModeLearned {
		return s.learned(ctx, request, k, max(pool, LearnedPool))
	}
	var sem, kw []shown.CommandHit
	var vec []float32
	if mode == ModeSemantic || mode == ModeHybrid {
		hits, v, err := s.nearestTo(ctx, request, pool)
		if err != nil {
			return nil, nil, err
		}
		sem, vec = Group(hits, pool), v
		if mode == ModeSemantic {
			return sem[:min(k, len(sem))], vec, nil
		}
	}
	if err := s.keywordsReady(mode); err != nil {
		return nil, nil, err
	}
	kw = s.keywordRanking(request, pool)
	named := s.Keywords.Named(request)
	if mode == ModeKeyword {
		return withKeywordScores(fuse(k, ranking{kw, 1}, ranking{namedHits(named), nameWeight / keywordWeight}), kw), nil, nil
	}
	return fuse(k, ranking{sem, 1}, ranking{kw, keywordWeight}, ranking{namedHits(named), nameWeight}), vec, nil
}

// keywordsReady says why the keyword index cannot serve mode, if it cannot.
func (s Searcher) keywordsReady(mode Mode) error {
	if s.Keywords == nil {
		return fmt.Errorf("no keyword index for mode %s", mode)
	}
	if !s.Keywords.HasChunks() {
		return fmt.Errorf("the keyword index has no chunk texts (saved by an older cmdai): load it with kwstore.Open, which rebuilds it")
	}
	return nil
}

// nearestQuerier is a Collection that can answer a query with ids and
// distances alone (chroma.Collection.QueryNearest), give its records'
// vectors (for recvec), and count a record refused (Refuse).
type nearestQuerier interface {
	recvec.Source
	QueryNearest(ctx context.Context, vec []float32, n int) ([]chroma.Hit, error)
	Refuse(id string)
}

// nearestTo embeds the request and returns its n nearest chunks, and
// its vector.
func (s Searcher) nearestTo(ctx context.Context, request string, n int) ([]chroma.Hit, []float32, error) {
	vecs, err := s.Embedder.Embed(ctx, []string{request})
	if err != nil {
		return nil, nil, err
	}
	hits, err := s.nearest(ctx, vecs[0], n)
	return hits, vecs[0], err
}

// nearest returns the n chunks nearest to vec. When the keyword index
// holds every chunk's text and metadata (a warm serve, hybrid) and the
// records' vectors are kept beside it (recvec), Chroma is asked for ids
// and distances only and the rest is read from there: metadata, and
// vectors most of all, are most of a Chroma query's time. Each distance
// is compared with the one of the vector recvec holds, checked when it
// was read: a chunk the server ranks by another vector is dropped (and
// counted). The keyword index is keyed to the collection's build
// (KeywordIndex); an id it does not know says it is behind, and the query
// is asked again the full way, which reads and checks the vectors.
func (s Searcher) nearest(ctx context.Context, vec []float32, n int) ([]chroma.Hit, error) {
	q, ok := s.Coll.(nearestQuerier)
	if !ok || s.Keywords == nil || !s.Keywords.HasChunks() || s.KeywordDir == "" {
		return s.Coll.Query(ctx, vec, n)
	}
	held, err := recvec.Of(ctx, s.Keywords, q, s.KeywordDir)
	if err != nil {
		return nil, err
	}
	hits, err := q.QueryNearest(ctx, vec, n)
	if err != nil {
		return nil, err
	}
	out := hits[:0]
	for _, h := range hits {
		doc, ok := s.Keywords.Lookup(h.ID)
		if !ok {
			return s.Coll.Query(ctx, vec, n)
		}
		if !held.Agrees(h.ID, vec, h.Distance) {
			q.Refuse(h.ID)
			continue
		}
		text, md := s.Keywords.Chunk(doc)
		h.Document, h.Metadata = text, md.ToChroma()
		out = append(out, h)
	}
	return out, nil
}

// keywordRanking ranks commands by their BM25 chunks, by the keyword rule
// of aggregate. The chunks' text and metadata come from the keyword index
// itself, not from Chroma: keyword mode needs no Chroma at all, and
// hybrid makes one round trip (the semantic query), not two.
func (s Searcher) keywordRanking(request string, pool int) []shown.CommandHit {
	hits := s.Keywords.Search(request, pool)
	chunks := make([]chunk, 0, len(hits))
	for _, h := range hits {
		text, md := s.Keywords.Chunk(h.Doc)
		// The score in the ranking that found it (a semantic match's is
		// its cosine); BM25 says which scale it is on.
		m := shown.Match{ID: h.ID, Kind: md.Kind, Section: md.Section, Option: md.Option, Score: h.Score, BM25: h.Score, Text: text}
		chunks = append(chunks, chunk{command: h.Command, md: md, match: m})
	}
	return aggregate(chunks, keywordRule, len(chunks))
}

// withKeywordScores gives keyword mode's commands their keyword (BM25)
// score in place of the fusion's 1/(60+rank), which says nothing to a
// reader. The order stays the fusion's: a command named in the request
// moves up.
func withKeywordScores(hits, kw []shown.CommandHit) []shown.CommandHit {
	score := make(map[string]float64, len(kw))
	for _, h := range kw {
		score[h.Command] = h.Score
	}
	for i := range hits {
		hits[i].Score = score[hits[i].Command]
	}
	return hits
}

func namedHits(names []string) []shown.CommandHit {
	out := make([]shown.CommandHit, len(names))
	for i, n := range names {
		out[i] = shown.CommandHit{Command: n}
	}
	return out
}

type ranking struct {
	hits   []shown.CommandHit
	weight float64
}

// fuse merges rankings of commands by reciprocal rank. A command keeps the
// details (description, matches) of the first ranking that holds it,
// with the matches of the others added.
func fuse(k int, rankings ...ranking) []shown.CommandHit { return fuseK(k, rrfK, rankings...) }

// fuseK is fuse with reciprocal rank fusion's constant rk.
func fuseK(k int, rk float64, rankings ...ranking) []shown.CommandHit {
	byCmd := map[string]*shown.CommandHit{}
	var order []*shown.CommandHit
	seenMatch := map[string]bool{}
	for _, r := range rankings {
		for rank, h := range r.hits {
			c := byCmd[h.Command]
			if c == nil {
				cp := h
				cp.Matches = nil
				cp.Score = 0
				c = &cp
				byCmd[h.Command] = c
				order = append(order, c)
			} else if c.Description == "" {
				c.Description, c.Version, c.Package, c.ManSection, c.InstalledPath, c.Aliases = h.Description, h.Version, h.Package, h.ManSection, h.InstalledPath, h.Aliases
				if h.Parent != "" {
					c.Parent = h.Parent // a page channel's hit has no details
				}
			}
			c.Score += r.weight / (rk + float64(rank+1))
			for _, m := range h.Matches {
				if !seenMatch[m.ID] {
					seenMatch[m.ID] = true
					c.Matches = append(c.Matches, m)
				}
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Score > order[j].Score })
	out := make([]shown.CommandHit, 0, k)
	for _, c := range order {
		if len(out) == k {
			break
		}
		if len(c.Matches) == 0 {
			continue // named only, with no chunk that answers: nothing to show
		}
		out = append(out, *c)
	}
	return out
}
