package optrank

import (
	"math"
	"reflect"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
)

func TestSpellings(t *testing.T) {
	for label, want := range map[string][]string{
		"-x, --extract, --get":    {"-x", "--extract", "--get"},
		"-C, --directory DIR":     {"-C", "--directory"},
		"--one-top-level [=DIR]":  {"--one-top-level"},
		"--color[=WHEN]":          {"--color"},
		"-n NUM":                  {"-n"},
		"+n":                      {"+n"},
		"FILE, --":                nil,
		"-o <file>, --output=<f>": {"-o", "--output"},
	} {
		if got := Spellings(label); !reflect.DeepEqual(got, want) {
			t.Errorf("Spellings(%q) = %q, want %q", label, got, want)
		}
	}
}

func TestUses(t *testing.T) {
	known := map[string]bool{"-name": true, "-n": true}
	for _, c := range []struct {
		text      string
		spellings []string
		want      bool
	}{
		{"tar -xzf a.tgz -C /opt", []string{"-C", "--directory"}, true},
		{"tar -xzC /opt -f a.tgz", []string{"-C"}, true},              // inside a cluster
		{"tar --directory=/opt -xf a", []string{"--directory"}, true}, // with its value
		{"find . -name '*.c'", []string{"-n"}, false},                 // -name is a spelling of its own
		{"find . -name '*.c'", []string{"-name"}, true},
		{"ls -la", []string{"-R"}, false},
		{"grep --count x", []string{"--color"}, false},
		{"cut -d: -f1 /etc/passwd", []string{"-d"}, true},
	} {
		if got := Uses(c.text, c.spellings, known); got != c.want {
			t.Errorf("Uses(%q, %q) = %v, want %v", c.text, c.spellings, got, c.want)
		}
	}
}

func TestChooseShowsTheCloseOnesUpToMax(t *testing.T) {
	r := func(scores ...float64) []Ranked {
		var out []Ranked
		for _, s := range scores {
			out = append(out, Ranked{Score: s})
		}
		return out
	}
	w := Weights{Margin: 0.5, Max: 3}
	for _, c := range []struct {
		ranked []Ranked
		want   int
	}{
		{nil, 0},
		{r(2), 1},
		{r(2, 0.5, 0.4), 1},         // one is clearly enough
		{r(2, 1.8, 1.6, 1.55), 3},   // several close: at most Max
		{r(2, 1.6, 1.4, 1.0), 2},    // within the margin of the best, not of the last
		{r(2, 1.5, 1.5, 1.5, 1), 3}, // ties at the margin's edge count
	} {
		if got := w.Choose(c.ranked); got != c.want {
			t.Errorf("Choose(%v) = %d, want %d", c.ranked, got, c.want)
		}
	}
}

// testPage is tar-like: the request "extract into a directory" names
// --directory's words, and the page's example uses -C.
func testPage() (*bm25.Index, Page) {
	texts := map[string]string{
		"tar.1#OPTIONS#-x":              "tar(1) option -x, --extract, --get\nExtract files from an archive.",
		"tar.1#OPTIONS#-C":              "tar(1) option -C, --directory DIR\nChange to DIR before performing any operations.",
		"tar.1#OPTIONS#--one-top-level": "tar(1) option --one-top-level [=DIR]\nExtract all files into DIR.",
		"tar.1#EXAMPLES#1":              "tar(1) example\nExtract the archive into /srv.\n\ntar -xf a.tar -C /srv",
	}
	var docs []bm25.Doc
	for id, text := range texts {
		docs = append(docs, bm25.Doc{ID: id, Command: "tar", Text: text})
	}
	kw := bm25.Build(docs)
	p := Page{Synopsis: "tar(1) - an archiving utility\ntar [-x] [-C DIR] FILE", Common: map[string]int{"-C": 40, "-x": 3}}
	for i, id := range []string{"tar.1#OPTIONS#-x", "tar.1#OPTIONS#-C", "tar.1#OPTIONS#--one-top-level"} {
		p.Records = append(p.Records, Record{ID: id, Kind: index.KindOption, Text: texts[id], Pos: i, Cos: 0.3 + 0.1*float64(i)})
	}
	p.Records = append(p.Records, Record{ID: "tar.1#EXAMPLES#1", Kind: index.KindExample, Text: texts["tar.1#EXAMPLES#1"], Cos: math.NaN()})
	return kw, p
}

func TestVectors(t *testing.T) {
	kw, p := testPage()
	vs := Vectors(kw, "extract into a directory", p, "")
	f := func(rec int, name string) float64 {
		for i, n := range features {
			if n == name {
				return vs[rec][i]
			}
		}
		t.Fatalf("no feature %s", name)
		return 0
	}
	// cosines: 0.3, 0.4, 0.5 and unknown
	if f(2, FCosGap) != 0 || math.Abs(f(0, FCosGap)+0.2) > 1e-9 || f(3, FCosGap) != GapFloor || f(3, FCos) != 0 {
		t.Errorf("cos_gap %v %v %v, want -0.2, 0 and the floor for an unknown cosine", f(0, FCosGap), f(2, FCosGap), f(3, FCosGap))
	}
	if f(2, FCosRank) != 1 || f(0, FCosRank) != 1.0/3 {
		t.Errorf("rr_cos %v %v, want 1 and 1/3", f(2, FCosRank), f(0, FCosRank))
	}
	if f(1, FName) != 1 || f(0, FName) != 0.5 { // --directory; --extract of extract, get
		t.Errorf("name %v %v, want 1 (directory) and 0.5 (extract of extract, get)", f(1, FName), f(0, FName))
	}
	if f(1, FExUse) != math.Log1p(1) || f(2, FExUse) != 0 {
		t.Errorf("ex_use %v %v: the example uses -C, not --one-top-level", f(1, FExUse), f(2, FExUse))
	}
	if f(0, FSyn) != 1 || f(2, FSyn) != 0 {
		t.Errorf("syn %v %v: the synopsis spells -x, not --one-top-level", f(0, FSyn), f(2, FSyn))
	}
	if f(1, FCommon) != math.Log1p(40)/5 || f(1, FArg) != 1 || f(0, FArg) != 0 || f(3, FExample) != 1 {
		t.Errorf("common %v, arg %v %v, example %v", f(1, FCommon), f(1, FArg), f(0, FArg), f(3, FExample))
	}
	if f(0, FPos) != 0 || f(2, FPos) != 1 {
		t.Errorf("pos %v %v, want 0 and 1", f(0, FPos), f(2, FPos))
	}
	if f(0, FBM25Rel) <= 0 || f(1, FBM25Rel) <= 0 {
		t.Errorf("bm25_rel %v %v: both texts hold a word of the request", f(0, FBM25Rel), f(1, FBM25Rel))
	}
	if f(1, FExCos) != GapFloor || f(1, FExBM25) <= 0 || f(2, FExBM25) != 0 {
		t.Errorf("ex_cos %v (the example's cosine is unknown), ex_bm25 %v and %v: the example using -C holds \"extract\"", f(1, FExCos), f(1, FExBM25), f(2, FExBM25))
	}
	// the example left out of the counts (a pseudo-request made from it)
	if vs := Vectors(kw, "extract into a directory", p, "tar.1#EXAMPLES#1"); vs[1][6] != 0 {
		t.Errorf("ex_use %v with the example skipped, want 0", vs[1][6])
	}
}

func TestRankOrdersByTheWeights(t *testing.T) {
	kw, p := testPage()
	byName := Weights{Features: map[string]float64{FName: 1}, Max: 2}
	got := byName.Rank(kw, "extract into a directory", p)
	if got[0].ID != "tar.1#OPTIONS#-C" {
		t.Errorf("ranked by the name feature: first %s, want -C (--directory)", got[0].ID)
	}
	byCos := Weights{Features: map[string]float64{FCos: 1}, Max: 2}
	if got := byCos.Rank(kw, "extract into a directory", p); got[0].ID != "tar.1#OPTIONS#--one-top-level" {
		t.Errorf("ranked by cosine: first %s, want --one-top-level (0.5)", got[0].ID)
	}
}

func TestDefaultWeightsNameKnownFeatures(t *testing.T) {
	for name := range Default.Features {
		found := false
		for _, f := range features {
			found = found || f == name
		}
		if !found {
			t.Errorf("Default weighs %q, which Vectors does not compute", name)
		}
	}
	if Default.Max < 1 {
		t.Errorf("Default.Max %d: an answer shows one record at least", Default.Max)
	}
}
