// Package bm25 ranks an index's chunks by BM25 over their words, the
// keyword half of hybrid retrieval, and keeps each chunk's text and
// metadata so that a ranking can be shown without asking Chroma for them.
package bm25

import (
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/cmdai/cmdai/index"
)

// BM25 parameters (the usual ones).
const (
	k1 = 1.2
	b  = 0.75
)

// Doc is one chunk to index.
type Doc struct {
	ID      string
	Command string
	Aliases []string
	Text    string
	// Meta is the chunk's metadata, kept with its Text (Chunk).
	Meta index.Metadata
}

// Index is a BM25 index over chunks. It is built once from the records
// of a collection and kept beside it (Save, Load).
type Index struct {
	ids      arena
	commands []string // interned: one copy per command
	lens     []int32
	avgLen   float64
	// postings maps a term to the docs holding it and how often.
	postings map[string][]Posting
	// names maps every command name and alias to its command.
	names map[string]string
	// texts and metas are each chunk's text and metadata, in the order of
	// ids: what hybrid search shows of a keyword match. Before they were
	// kept here, every hybrid query asked Chroma for them (a Get of ~100
	// records, about as long as the rest of the query). An index saved
	// without them (an older cmdai) has none: HasChunks says so.
	texts     arena
	metas     metaStore
	hasChunks bool

	// byID is built on the first Lookup, byCommand on the first ChunksOf.
	byIDOnce      sync.Once
	byID          map[string]int
	byCommandOnce sync.Once
	byCommand     map[string][]int
}

// wire is the index as Save writes it and Load reads it (gob matches
// fields by name: these are the names and types of every cmdai so far).
type wire struct {
	IDs      []string
	Commands []string
	Lens     []int32
	AvgLen   float64
	Postings map[string][]Posting
	Names    map[string]string
	Texts    []string
	Metas    []index.Metadata
}

// fromWire keeps w in memory's compact form.
func fromWire(w *wire) *Index {
	ix := &Index{ids: newArena(w.IDs), commands: internAll(w.Commands), lens: w.Lens, avgLen: w.AvgLen,
		postings: w.Postings, names: w.Names}
	if ix.postings == nil {
		ix.postings = map[string][]Posting{}
	}
	if ix.names == nil {
		ix.names = map[string]string{}
	}
	if len(w.Texts) == len(w.IDs) && len(w.Metas) == len(w.IDs) {
		ix.texts, ix.metas, ix.hasChunks = newArena(w.Texts), newMetaStore(w.Metas), true
	}
	return ix
}

func (ix *Index) toWire() *wire {
	w := &wire{IDs: ix.ids.slice(), Commands: ix.commands, Lens: ix.lens, AvgLen: ix.avgLen, Postings: ix.postings, Names: ix.names}
	if ix.hasChunks {
		w.Texts, w.Metas = ix.texts.slice(), ix.metas.slice()
	}
	return w
}

// Posting is one doc holding a term.
type Posting struct {
	Doc  int32
	Freq int32
}

// Build indexes docs.
func Build(docs []Doc) *Index {
	ix := &wire{Postings: map[string][]Posting{}, Names: map[string]string{}}
	var total int64
	for i, d := range docs {
		terms := Terms(d.Text)
		if d.Command != "" {
			ix.Names[d.Command] = d.Command
			for _, a := range d.Aliases {
				ix.Names[a] = d.Command
			}
		}
		ix.IDs = append(ix.IDs, d.ID)
		ix.Commands = append(ix.Commands, d.Command)
		ix.Lens = append(ix.Lens, int32(len(terms)))
		ix.Texts = append(ix.Texts, d.Text)
		ix.Metas = append(ix.Metas, d.Meta)
		total += int64(len(terms))
		freq := map[string]int32{}
		for _, t := range terms {
			freq[t]++
		}
		for t, f := range freq {
			ix.Postings[t] = append(ix.Postings[t], Posting{Doc: int32(i), Freq: f})
		}
	}
	if len(docs) > 0 {
		ix.AvgLen = float64(total) / float64(len(docs))
	}
	return fromWire(ix)
}

// Hit is one scored chunk.
type Hit struct {
	// Doc is the chunk's position in the index (Chunk).
	Doc     int
	ID      string
	Command string
	Score   float64
}

// Search returns the n best chunks for the query, best first.
func (ix *Index) Search(query string, n int) []Hit {
	scores := map[int32]float64{}
	N := float64(ix.Len())
	seen := map[string]bool{}
	for _, t := range Terms(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (N-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.Freq)
			norm := tf * (k1 + 1) / (tf + k1*(1-b+b*float64(ix.lens[p.Doc])/ix.avgLen))
			scores[p.Doc] += idf * norm
		}
	}
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, Hit{Doc: int(d), ID: ix.ids.at(int(d)), Command: ix.commands[d], Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	return hits
}

// Named returns the commands the request names, in the order it names
// them: "use rsync to copy" names rsync. Words that are also common
// English ("file", "time", "which") count only when written as a command
// would be, never capitalised at the start of the request.
func (ix *Index) Named(request string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range NameWords(request) {
		cmd, ok := ix.names[w]
		if !ok || seen[cmd] {
			continue
		}
		seen[cmd] = true
		out = append(out, cmd)
	}
	return out
}

// NameWords returns the words of the request that may name a command, in
// order, by Named's rules (stop words and a capitalised first word are
// not names): what a caller without an index (no names) looks up on
// $PATH itself.
func NameWords(request string) []string {
	var out []string
	for i, w := range strings.FieldsFunc(request, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`,;:!?()"'`+"`", r)
	}) {
		w = strings.TrimRight(w, ".")
		if w == "" || (i == 0 && w != strings.ToLower(w)) || (stop[w] && !strings.ContainsRune(w, '-')) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// Lookup returns the position of the chunk with this id (for Chunk).
func (ix *Index) Lookup(id string) (int, bool) {
	ix.byIDOnce.Do(func() {
		ix.byID = make(map[string]int, ix.Len())
		for i := range ix.Len() {
			ix.byID[ix.ids.at(i)] = i
		}
	})
	doc, ok := ix.byID[id]
	return doc, ok
}

// Command returns the command a name or alias belongs to.
func (ix *Index) Command(name string) (string, bool) {
	c, ok := ix.names[name]
	return c, ok
}

// ChunksOf returns the positions (for Chunk and ID) of a command's
// chunks, in the order they were indexed.
func (ix *Index) ChunksOf(command string) []int {
	ix.byCommandOnce.Do(func() {
		ix.byCommand = map[string][]int{}
		for i, c := range ix.commands {
			ix.byCommand[c] = append(ix.byCommand[c], i)
		}
	})
	return slices.Clone(ix.byCommand[command])
}

// ID returns the id of the chunk at position doc.
func (ix *Index) ID(doc int) string { return ix.ids.at(doc) }

// Len is the number of chunks indexed.
func (ix *Index) Len() int { return ix.ids.len() }

// HasChunks says whether the index keeps every chunk's text and metadata
// (an index saved by an older cmdai does not: rebuild it).
func (ix *Index) HasChunks() bool { return ix.hasChunks }

// Chunk returns the text and metadata of the chunk at position doc (a
// Hit's Doc). It panics on a position out of range, as a slice does: Doc
// comes from this index's own Search. The metadata's slices (Aliases)
// are shared with the command's other chunks: read them only.
func (ix *Index) Chunk(doc int) (string, index.Metadata) { return ix.texts.at(doc), ix.metas.meta(doc) }

// Save writes the index.
func (ix *Index) Save(w io.Writer) error { return gob.NewEncoder(w).Encode(ix.toWire()) }

// WithoutChunks returns a copy of the index without the chunks' text and
// metadata: what an older cmdai saved (for tests of the upgrade path),
// and an index that is only searched (whole pages: pagestats).
func (ix *Index) WithoutChunks() *Index {
	w := ix.toWire()
	w.Texts, w.Metas = nil, nil
	return fromWire(w)
}

// Load reads an index written by Save.
func Load(r io.Reader) (*Index, error) {
	var w wire
	if err := gob.NewDecoder(r).Decode(&w); err != nil {
		return nil, fmt.Errorf("keyword index: %w", err)
	}
	if len(w.Commands) != len(w.IDs) || len(w.Lens) != len(w.IDs) {
		return nil, fmt.Errorf("keyword index: %d ids, %d commands, %d lengths: damaged", len(w.IDs), len(w.Commands), len(w.Lens))
	}
	return fromWire(&w), nil
}

// stop words carry no signal about which command is meant.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of to in on for and or is are be by with from at as it its this that
		these those all any each my me i you your we our can how do does what which when where who will would should
		into out over under than then there their them they if not no but so such via per use using used file files`) {
		stop[w] = true
	}
}

// Terms splits text into lower-case words and flags: "--ignore-case" is
// kept whole (and also as its words), since requests and pages name flags.
func Terms(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.')
	}) {
		f = strings.Trim(f, ".")
		if strings.HasPrefix(f, "-") && len(f) > 1 {
			out = append(out, f)
		}
		for _, w := range strings.FieldsFunc(f, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
			if len(w) > 1 && !stop[w] {
				out = append(out, stem(w))
			}
		}
	}
	return out
}

// stem strips the commonest English endings, the same way for requests
// and pages: "files"/"file", "matches"/"match", "compressed"/"compress",
// "sorting"/"sort".
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "es") && (strings.HasSuffix(w[:len(w)-2], "s") || strings.HasSuffix(w[:len(w)-2], "x") ||
		strings.HasSuffix(w[:len(w)-2], "z") || strings.HasSuffix(w[:len(w)-2], "ch") || strings.HasSuffix(w[:len(w)-2], "sh")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	}
	return w
}

// ScoreText is the BM25 score of text for the query's terms (Terms of
// the request) with this index's document frequencies and average
// length: the scale Search scores chunks on, for a chunk scored against
// its own command's others rather than against every chunk.
func (ix *Index) ScoreText(query []string, text string) float64 {
	freq, n := TermFreq(text)
	return ix.ScoreFreq(query, freq, n)
}

// TermFreq is how often each of text's Terms occurs in it, and how many
// terms it has: what ScoreFreq scores, computed once for a text scored
// against many requests.
func TermFreq(text string) (map[string]int, int) {
	terms := Terms(text)
	freq := make(map[string]int, len(terms))
	for _, t := range terms {
		freq[t]++
	}
	return freq, len(terms)
}

// ScoreFreq is ScoreText of a text given as TermFreq gives it.
func (ix *Index) ScoreFreq(query []string, freq map[string]int, n int) float64 {
	if len(query) == 0 || ix.avgLen == 0 {
		return 0
	}
	N := float64(ix.Len())
	score := 0.0
	seen := map[string]bool{}
	for _, t := range query {
		if seen[t] || freq[t] == 0 {
			continue
		}
		seen[t] = true
		df := float64(len(ix.postings[t]))
		idf := math.Log(1 + (N-df+0.5)/(df+0.5))
		tf := float64(freq[t])
		score += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(n)/ix.avgLen))
	}
	return score
}
