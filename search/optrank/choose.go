package optrank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
)

// Weights are the option ranker's linear weights by feature name, and how
// many records an answer shows.
type Weights struct {
	Features map[string]float64 `json:"features"`
	// Margin: a record is shown beside the best one when its score is
	// within Margin of the best's; Max bounds how many are shown.
	Margin float64 `json:"margin"`
	Max    int     `json:"max"`
}

// Score is the linear score of one feature vector (Vectors' order).
func (w Weights) Score(v []float64) float64 {
	s := 0.0
	for i, name := range features {
		s += w.Features[name] * v[i]
	}
	return s
}

// Ranked is one record with its score.
type Ranked struct {
	Record
	Score float64
}

// Rank scores the page's records for the request, best first.
func (w Weights) Rank(kw *bm25.Index, request string, p Page) []Ranked {
	vs := Vectors(kw, request, p, "")
	out := make([]Ranked, len(p.Records))
	for i, r := range p.Records {
		out[i] = Ranked{Record: r, Score: w.Score(vs[i])}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out
}

// Choose is how many of a ranking (best first) an answer shows: the best
// one, and each next one whose score is within Margin of it, at most Max.
func (w Weights) Choose(ranked []Ranked) int {
	if len(ranked) == 0 {
		return 0
	}
	n := 1
	for n < len(ranked) && n < max(1, w.Max) && ranked[0].Score-ranked[n].Score <= w.Margin {
		n++
	}
	return n
}

// commonOf is what this package derives from the keyword index last
// asked about: how many pages' examples use each option spelling. One
// only, as pagestats keeps its figures: a serve that reloads drops the
// old index's.
var commonOf struct {
	sync.Mutex
	kw     *bm25.Index
	common map[string]int
}

// Common returns, for every option spelling, how many commands' example
// records use it (words such as -r, -f, --help; clusters not split):
// how common an option so spelled is across the installed pages.
func Common(kw *bm25.Index) map[string]int {
	if kw == nil {
		return nil
	}
	commonOf.Lock()
	defer commonOf.Unlock()
	if commonOf.kw == kw {
		return commonOf.common
	}
	pages := map[string]map[string]bool{}
	if kw.HasChunks() {
		for i := 0; i < kw.Len(); i++ {
			text, md := kw.Chunk(i)
			if md.Kind != index.KindExample || md.Command == "" {
				continue
			}
			for w := range words(text) {
				if pages[w] == nil {
					pages[w] = map[string]bool{}
				}
				pages[w][md.Command] = true
			}
		}
	}
	common := make(map[string]int, len(pages))
	for w, p := range pages {
		common[w] = len(p)
	}
	commonOf.kw, commonOf.common = kw, common
	return common
}

// PageOf is a command's page as the ranker sees it, from the keyword
// index: its option records (the first chunk of each option, in page
// order) and example records, with cos giving each record's cosine
// (NaN when unknown; nil: all unknown).
func PageOf(kw *bm25.Index, command string, cos func(id string) float64) Page {
	base := pageOf(kw, command)
	p := base
	p.Records = slices.Clone(base.Records) // their prepared texts shared
	if cos != nil {
		for i := range p.Records {
			p.Records[i].Cos = cos(p.Records[i].ID)
		}
	}
	return p
}

// pages are the pages of the keyword index last asked about, each read
// and prepared once (a warm serve asks for the same commands again and
// again), at most maxPages; one index only, as Common keeps.
var pages struct {
	sync.Mutex
	kw *bm25.Index
	by map[string]Page
}

// pageOf is kw's page of command, its records prepared, cosines unknown.
func pageOf(kw *bm25.Index, command string) Page {
	common := Common(kw)
	pages.Lock()
	defer pages.Unlock()
	if pages.kw != kw {
		pages.kw, pages.by = kw, map[string]Page{}
	}
	if p, ok := pages.by[command]; ok {
		return p
	}
	docs := kw.ChunksOf(command)
	recs := make([]Chunk, len(docs))
	for i, doc := range docs {
		text, md := kw.Chunk(doc)
		recs[i] = Chunk{ID: kw.ID(doc), Kind: md.Kind, Section: md.Section, Option: md.Option, Text: text}
	}
	p := NewPage(recs, common, nil)
	for i := range p.Records {
		p.Records[i].prepare()
	}
	if len(pages.by) >= maxPages {
		pages.by = map[string]Page{} // a bound on memory: start again
	}
	pages.by[command] = p
	return p
}

// maxPages bounds the prepared pages kept (about 100 KB each): the
// commands a serve is asked about most stay warm, a scan of every command
// does not grow it past a few tens of MB.
const maxPages = 256

// Chunk is one record of a command as an index holds it.
type Chunk struct {
	ID              string
	Kind            index.Kind
	Section, Option string
	Text            string
}

// NewPage is a command's page as the ranker sees it, from its records in
// any order (common: Common's counts; cos: each record's cosine, NaN
// when unknown, nil: all unknown): its option records (the first chunk
// of each option, in page order) and example records.
func NewPage(recs []Chunk, common map[string]int, cos func(id string) float64) Page {
	recs = slices.Clone(recs)
	sort.SliceStable(recs, func(a, b int) bool { return index.LessID(recs[a].ID, recs[b].ID) })
	p := Page{Common: common}
	seen := map[string]bool{}
	pos := 0
	for _, md := range recs {
		text, id := md.Text, md.ID
		c := math.NaN()
		if cos != nil {
			c = cos(id)
		}
		switch md.Kind {
		case index.KindSummary:
			if p.Synopsis == "" {
				p.Synopsis = text
			}
		case index.KindOption:
			// an option's later chunks (id#2) carry its description's rest
			key := md.Section + "#" + md.Option
			if md.Option == "" || seen[key] {
				continue
			}
			seen[key] = true
			p.Records = append(p.Records, Record{ID: id, Kind: md.Kind, Section: md.Section, Option: md.Option, Text: text, Pos: pos, Cos: c})
			pos++
		case index.KindExample:
			if strings.Contains(id, "#EXAMPLES#") && strings.Contains(id[strings.LastIndex(id, "#"):], ".") {
				continue // a long example's later chunk
			}
			p.Records = append(p.Records, Record{ID: id, Kind: md.Kind, Section: md.Section, Option: md.Option, Text: text, Cos: c})
		}
	}
	return p
}

// ReadWeights reads weights written as JSON (Weights' fields): for
// tuning on a train split (`index eval --option-weights`).
func ReadWeights(path string) (Weights, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Weights{}, err
	}
	var w Weights
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Weights{}, fmt.Errorf("%s: %v (want {\"features\": {\"cos\": 1, ...}, \"margin\": 0.5, \"max\": 4})", path, err)
	}
	for name := range w.Features {
		if !slices.Contains(features, name) {
			return Weights{}, fmt.Errorf("%s: unknown feature %q (known: %s)", path, name, strings.Join(features, ", "))
		}
	}
	if w.Max < 1 {
		return Weights{}, fmt.Errorf("%s: max is %d: an answer shows 1 record or more", path, w.Max)
	}
	return w, nil
}
