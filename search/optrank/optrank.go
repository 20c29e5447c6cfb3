// Package optrank ranks one command's option and example records for a
// request and chooses the ones an answer shows: which flag does what was
// asked, best first, as many as the request needs.
package optrank

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search/bm25"
)

// Record is one option or example record of a command, as the ranker
// sees it.
type Record struct {
	ID              string
	Kind            index.Kind // index.KindOption or index.KindExample
	Section, Option string     // as the index's metadata gives them
	// Text is the chunk's text, its heading line included.
	Text string
	// Pos is an option's place among its page's options (0-based), in
	// page order; examples have none.
	Pos int
	// Cos is the record's cosine with the request; NaN when unknown (an
	// answer from the keyword index alone).
	Cos float64
	// prep is what Vectors reads of Text, the same for every request:
	// made on first use, shared by the copies of a page PageOf keeps.
	prep *prepared
}

// prepared is a record's text as Vectors reads it.
type prepared struct {
	freq      map[string]int // bm25.TermFreq
	terms     int
	spellings []string // an option's (Spellings of its Label)
	names     []string // the words of its long names (nameShare)
	words     []string // an example's option-like words (lineWords)
}

// prepare is r's prepared text, made once.
func (r *Record) prepare() *prepared {
	if r.prep != nil {
		return r.prep
	}
	p := &prepared{}
	p.freq, p.terms = bm25.TermFreq(r.Text)
	switch r.Kind {
	case index.KindOption:
		p.spellings = Spellings(r.Label())
		p.names = nameWords(p.spellings)
	case index.KindExample:
		p.words = lineWords(r.Text)
	}
	r.prep = p
	return p
}

// Label is an option record's spellings and argument as its page gives
// them ("-C, --directory DIR"); "" for an example.
func (r Record) Label() string {
	if r.Kind != index.KindOption {
		return ""
	}
	label, _ := manparse.SplitChunk(string(r.Kind), r.Text)
	return label
}

// Page is what the features of one command's records read: the records
// (an option's continuation chunks left out) and its synopsis.
type Page struct {
	Records []Record
	// Synopsis is the summary record's text (NAME, SYNOPSIS, the start of
	// DESCRIPTION): an option spelled there is one the page puts forward.
	Synopsis string
	// Common is how many pages' examples use each spelling (Common).
	Common map[string]int
}

// Feature names, in the order of a feature vector.
const (
	FCos     = "cos"      // the record's cosine with the request (0 when unknown)
	FCosGap  = "cos_gap"  // that cosine minus the page's best, floored at GapFloor
	FCosRank = "rr_cos"   // 1/(1 + rank) among the page's records by cosine
	FBM25    = "bm25"     // ln(1 + BM25 of the record's text for the request)
	FBM25Rel = "bm25_rel" // that BM25 over the page's best (0 when none matches)
	FName    = "name"     // the share of its long name's words the request holds (--one-top-level: one, top, level)
	FExUse   = "ex_use"   // ln(1 + the page's examples using the option)
	FSyn     = "syn"      // 1 when the synopsis spells the option
	FCommon  = "common"   // ln(1 + the pages whose examples use an option so spelled) / 5
	FPos     = "pos"      // the option's place among the page's options, 0 (first) to 1 (last)
	FExample = "example"  // 1 for an example record
	FArg     = "arg"      // 1 for an option that takes a value
	FExCos   = "ex_cos"   // the best cosine gap (as cos_gap) of the page's examples that use the option (GapFloor: none)
	FExBM25  = "ex_bm25"  // the best bm25_rel of the page's examples that use the option
)

// Features names every feature, in vector order (a fresh slice).
func Features() []string { return append([]string(nil), features...) }

var features = []string{FCos, FCosGap, FCosRank, FBM25, FBM25Rel, FName, FExUse, FSyn, FCommon, FPos, FExample, FArg, FExCos, FExBM25}

// GapFloor is the cosine gap of a record whose cosine is unknown, and
// the lowest any record gets.
const GapFloor = -0.3

// Vectors returns each record's features for the request (its terms as
// bm25.Terms gives them, kw the index their document frequencies come
// from), in Features order. skip, when not "", is a record left out of
// the page's example counts (the example a pseudo-request was made from).
func Vectors(kw *bm25.Index, request string, p Page, skip string) [][]float64 {
	terms := bm25.Terms(request)
	termSet := map[string]bool{}
	for _, t := range terms {
		termSet[t] = true
	}
	n := len(p.Records)
	bm, cos := make([]float64, n), make([]float64, n)
	bestBM, bestCos := 0.0, math.Inf(-1)
	preps := make([]*prepared, n)
	for i := range p.Records {
		preps[i] = p.Records[i].prepare()
	}
	for i, r := range p.Records {
		if kw != nil {
			bm[i] = kw.ScoreFreq(terms, preps[i].freq, preps[i].terms)
		}
		bestBM = max(bestBM, bm[i])
		cos[i] = r.Cos
		if !math.IsNaN(r.Cos) {
			bestCos = max(bestCos, r.Cos)
		}
	}
	cosRank := ranks(cos)
	spellings := make([][]string, n)
	known := map[string]bool{}
	options := 0
	for i, r := range p.Records {
		if r.Kind == index.KindOption {
			spellings[i] = preps[i].spellings
			for _, s := range spellings[i] {
				known[s] = true
			}
			options = max(options, r.Pos+1)
		}
	}
	var examples []int // the examples counted (not skip)
	exWords := map[int][]string{}
	for i, r := range p.Records {
		if r.Kind == index.KindExample && r.ID != skip {
			examples = append(examples, i)
			exWords[i] = preps[i].words
		}
	}
	synWords := words(p.Synopsis)
	out := make([][]float64, n)
	for i, r := range p.Records {
		v := make([]float64, len(features))
		if !math.IsNaN(cos[i]) {
			v[0] = cos[i]
			v[1] = max(GapFloor, cos[i]-bestCos)
			v[2] = 1 / float64(1+cosRank[i])
		} else {
			v[1] = GapFloor
		}
		v[3] = math.Log1p(bm[i])
		if bestBM > 0 {
			v[4] = bm[i] / bestBM
		}
		if r.Kind == index.KindExample {
			v[10] = 1
			out[i] = v
			continue
		}
		v[5] = nameShare(preps[i].names, termSet)
		uses, common := 0, 0
		v[12] = GapFloor
		for _, ex := range examples {
			if usesWords(exWords[ex], spellings[i], known) {
				uses++
				if !math.IsNaN(cos[ex]) {
					v[12] = max(v[12], cos[ex]-bestCos)
				}
				if bestBM > 0 {
					v[13] = max(v[13], bm[ex]/bestBM)
				}
			}
		}
		for _, s := range spellings[i] {
			common = max(common, p.Common[s])
			if synWords[s] {
				v[7] = 1
			}
		}
		v[6] = math.Log1p(float64(uses))
		v[8] = math.Log1p(float64(common)) / 5
		if options > 1 {
			v[9] = float64(r.Pos) / float64(options-1)
		}
		v[11] = boolf(takesValue(r.Label()))
		out[i] = v
	}
	return out
}

// ranks are each value's 0-based rank, highest first; NaN ranks last.
func ranks(vals []float64) []int {
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	key := func(i int) float64 {
		if math.IsNaN(vals[i]) {
			return math.Inf(-1)
		}
		return vals[i]
	}
	sort.SliceStable(order, func(a, b int) bool { return key(order[a]) > key(order[b]) })
	out := make([]int, len(vals))
	for r, i := range order {
		out[i] = r
	}
	return out
}

// nameWords are the words of an option's long names: --one-top-level's
// one, top and level.
func nameWords(spellings []string) []string {
	var ws []string
	for _, s := range spellings {
		if strings.HasPrefix(s, "--") || (strings.HasPrefix(s, "-") && len(s) > 2) {
			ws = append(ws, bm25.Terms(strings.ReplaceAll(strings.TrimLeft(s, "-+"), "-", " "))...)
		}
	}
	return ws
}

// nameShare is the share of an option's long names' words (nameWords)
// that the request's terms hold.
func nameShare(ws []string, terms map[string]bool) float64 {
	if len(ws) == 0 {
		return 0
	}
	hit := 0
	for _, w := range ws {
		if terms[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(ws))
}

// takesValue says an option label names a value after its spellings
// ("-C, --directory DIR", "--color[=WHEN]", "-n NUM").
func takesValue(label string) bool {
	for _, part := range strings.Split(label, ",") {
		f := strings.Fields(part)
		if len(f) > 1 || (len(f) == 1 && strings.ContainsAny(f[0], "=[<")) {
			return true
		}
	}
	return false
}

// Spellings are the flags an option label gives ("-C, --directory DIR"
// -> -C, --directory), values and brackets cut off.
func Spellings(label string) []string {
	var out []string
	for _, part := range strings.Split(label, ",") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		s := f[0]
		if i := strings.IndexAny(s, "=[<"); i > 0 {
			s = s[:i]
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') && s != "--" {
			out = append(out, s)
		}
	}
	return out
}

// Uses says a text (an example's command line) uses an option spelled
// one of spellings: as a word of its own ("--directory", "--directory=x",
// "-C"), or a short one starting a word with its value attached ("-d:")
// or inside a cluster of short options ("-C" in "-xzC"), when the word
// is not itself a spelling the page knows (known: find's -name is no
// cluster of -n, -a, -m, -e).
func Uses(text string, spellings []string, known map[string]bool) bool {
	return usesWords(lineWords(text), spellings, known)
}

// lineWords are the words of a command line Uses looks at, values after
// '=' cut off.
func lineWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`;|&()$", r)
	}) {
		if i := strings.IndexByte(w, '='); i > 0 {
			w = w[:i]
		}
		if len(w) > 1 && (w[0] == '-' || w[0] == '+') {
			out = append(out, w)
		}
	}
	return out
}

// usesWords is Uses over a line's words (lineWords).
func usesWords(words []string, spellings []string, known map[string]bool) bool {
	for _, w := range words {
		for _, s := range spellings {
			if w == s {
				return true
			}
			if len(s) == 2 && s[0] == '-' && len(w) > 2 && w[0] == '-' && w[1] != '-' && !known[w] &&
				(strings.HasPrefix(w, s) || cluster(w) && strings.ContainsRune(w[1:], rune(s[1]))) {
				return true // -d: and -f1 (a value attached), -xzC (a cluster)
			}
		}
	}
	return false
}

// cluster says a word may be short options written together (-xzvf).
func cluster(w string) bool {
	for _, r := range w[1:] {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// words are the option-like words of a text.
func words(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`;|&()[]{},", r)
	}) {
		if i := strings.IndexByte(w, '='); i > 0 {
			w = w[:i]
		}
		if len(w) > 1 && (w[0] == '-' || w[0] == '+') {
			out[w] = true
		}
	}
	return out
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
