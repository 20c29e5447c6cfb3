package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/shown"
)

// inFake is a fakeCollection that also gives records' vectors
// (Embeddings): unit vectors at the cosines it was given with the
// request's ([1, 0], fakeEmbedder's).
type inFake struct {
	*fakeCollection
	cos      map[string]float64
	askedFor []string
}

func (f *inFake) Embeddings(_ context.Context, ids []string) (map[string][]float32, error) {
	f.askedFor = append(f.askedFor, ids...)
	out := map[string][]float32{}
	for _, id := range ids {
		if c, ok := f.cos[id]; ok {
			out[id] = []float32{float32(c), float32(math.Sqrt(1 - c*c))}
		}
	}
	return out, nil
}

func optionFixture(t *testing.T) (Searcher, *inFake) {
	t.Helper()
	recs := []chroma.Record{
		rec("tar.1#NAME", "tar", "summary", "tar(1) - an archiving utility", nil),
		rec("tar.1#OPTIONS#-x", "tar", "option", "tar(1) option -x, --extract\nExtract files from an archive.", map[string]any{"option": "-x", "section": "OPTIONS"}),
		rec("tar.1#OPTIONS#-C", "tar", "option", "tar(1) option -C, --directory DIR\nChange to DIR before performing any operations.", map[string]any{"option": "-C", "section": "OPTIONS"}),
		rec("tar.1#OPTIONS#-v", "tar", "option", "tar(1) option -v, --verbose\nVerbosely list files processed.", map[string]any{"option": "-v", "section": "OPTIONS"}),
		rec("ls.1#NAME", "ls", "summary", "ls(1) - list directory contents", nil),
	}
	f := &inFake{fakeCollection: newFake(recs, []float64{0.6, 0.5, 0.3, 0.2, 0.1}),
		cos: map[string]float64{"tar.1#OPTIONS#-x": 0.5, "tar.1#OPTIONS#-C": 0.45, "tar.1#OPTIONS#-v": 0.1}}
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw}, f
}

// The option ranker puts the options that do what was asked first in
// each command's matches, names them in Flags, and an answer shows as
// many as it chose; a command with no options keeps its matches.
func TestAnswerShowsTheChosenOptionsFirst(t *testing.T) {
	s, f := optionFixture(t)
	w := optrank.Weights{Features: map[string]float64{optrank.FCos: 10, optrank.FName: 1}, Margin: 1, Max: 3}
	s.Options = &w
	a, err := s.Answer(context.Background(), Request{Query: "extract into a directory", K: 2, Mode: ModeSemantic})
	if err != nil {
		t.Fatal(err)
	}
	if c := commands(a.Commands); c != "tar ls" {
		t.Fatalf("commands %q, want tar ls", c)
	}
	if len(f.askedFor) != 3 {
		t.Errorf("Chroma asked for the vectors of %q, want tar's three options (ls has none)", f.askedFor)
	}
	tar := a.Commands[0]
	// -x 5+1 (extract), -C 4.5+1 (directory), -v 1: -x and -C within 1 of the best
	var ids []string
	for _, m := range tar.Matches {
		ids = append(ids, m.ID)
	}
	if want := []string{"tar.1#OPTIONS#-x", "tar.1#OPTIONS#-C"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("tar's matches %q, want %q (the chosen two, nothing else by default)", ids, want)
	}
	if want := []string{"-x, --extract", "-C, --directory DIR"}; !reflect.DeepEqual(chosenFlags(tar.Matches, tar.Chosen), want) || tar.Chosen != 2 {
		t.Errorf("tar's flags %q (chosen %d), want %q", chosenFlags(tar.Matches, tar.Chosen), tar.Chosen, want)
	}
	if ls := a.Commands[1]; ls.Chosen != 0 || len(ls.Matches) != 1 || ls.Matches[0].ID != "ls.1#NAME" {
		t.Errorf("ls (no options) %+v, want its own match, nothing chosen", ls)
	}
	// asked for all matches: the chosen first, then the others
	all, err := s.Answer(context.Background(), Request{Query: "extract into a directory", K: 1, Mode: ModeSemantic, Matches: -1})
	if err != nil {
		t.Fatal(err)
	}
	if ms := all.Commands[0].Matches; len(ms) < 3 || ms[0].ID != "tar.1#OPTIONS#-x" || ms[2].ID != "tar.1#NAME" {
		t.Errorf("all matches %+v: the chosen first, then the command ranking's", ms)
	}
	// without the option ranker: the command ranking's matches, two
	s.NoOptionRank = true
	off, err := s.Answer(context.Background(), Request{Query: "extract into a directory", K: 1, Mode: ModeSemantic})
	if err != nil {
		t.Fatal(err)
	}
	if m := off.Commands[0].Matches; len(m) != shown.DefaultMatches || m[0].ID != "tar.1#NAME" || off.Commands[0].Chosen != 0 {
		t.Errorf("without the option ranker %+v, want the semantic order", m)
	}
}

// An answer without the request's vector (keyword mode, an answer from
// disk) keeps the keyword ranking's matches: the ranker's weights were
// fitted with cosines.
func TestKeywordAnswerKeepsItsMatches(t *testing.T) {
	s, _ := optionFixture(t)
	s.Coll = nil
	a, err := s.Answer(context.Background(), Request{Query: "tar verbosely list files", K: 1, Mode: ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Commands) == 0 || a.Commands[0].Chosen != 0 || a.Commands[0].Matches[0].Score != a.Commands[0].Matches[0].BM25 {
		t.Errorf("keyword answer %+v, want its BM25 matches, none chosen", a.Commands)
	}
}

// chosenFlags are the labels of the options among the first chosen
// matches (render.ChosenFlags, which this package's tests cannot import).
func chosenFlags(ms []shown.Match, chosen int) []string {
	var out []string
	for _, m := range ms[:chosen] {
		if m.Kind == "option" {
			label, _, _ := strings.Cut(m.Text, "\n")
			out = append(out, label[strings.Index(label, " option ")+len(" option "):])
		}
	}
	return out
}

// A page with no OPTIONS section is answered from its examples; a page
// with thousands of options gets a choice of at most Max, and the
// answer stays within its byte budget.
func TestChoiceWithoutOptionsAndWithThousands(t *testing.T) {
	recs := []chroma.Record{
		rec("frob.1#NAME", "frob", "summary", "frob(1) - twiddle bits", nil),
		rec("frob.1#EXAMPLES#1", "frob", "example", "frob(1) example\nTwiddle every bit of a file in place:\n\nfrob -i data.bin", map[string]any{"section": "EXAMPLES"}),
		rec("big.1#NAME", "big", "summary", "big(1) - a command with thousands of options", nil),
	}
	cos := map[string]float64{"frob.1#EXAMPLES#1": 0.7}
	for i := range 3000 {
		id := fmt.Sprintf("big.1#OPTIONS#--opt%d", i)
		recs = append(recs, rec(id, "big", "option", fmt.Sprintf("big(1) option --opt%d N\nTwiddle bit %d of every file, %s.", i, i, strings.Repeat("and more words ", i%7)), map[string]any{"option": fmt.Sprintf("--opt%d", i), "section": "OPTIONS"}))
		cos[id] = 0.3 + float64(i%100)/1000
	}
	f := &inFake{fakeCollection: newFake(recs, []float64{0.6, 0.55, 0.5, 0.4}), cos: cos}
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s := Searcher{Coll: f, Embedder: fakeEmbedder{}, Keywords: kw}
	a, err := s.Answer(context.Background(), Request{Query: "twiddle the bits of a file", K: 2, Mode: ModeSemantic})
	if err != nil {
		t.Fatal(err)
	}
	if c := commands(a.Commands); c != "frob big" {
		t.Fatalf("commands %q, want frob big", c)
	}
	if frob := a.Commands[0]; frob.Chosen != 1 || frob.Matches[0].ID != "frob.1#EXAMPLES#1" {
		t.Errorf("frob (no OPTIONS section) %+v, want its example chosen", frob)
	}
	big := a.Commands[1]
	if big.Chosen < 1 || big.Chosen > optrank.Default.Max || len(big.Matches) != big.Chosen {
		t.Errorf("big (3,000 options): %d chosen, %d shown; want 1 to %d, all shown", big.Chosen, len(big.Matches), optrank.Default.Max)
	}
	if b, _ := json.Marshal(a.Commands); len(b) > optrank.AnswerBudget {
		t.Errorf("answer of %d bytes, over the budget of %d", len(b), optrank.AnswerBudget)
	}
}
