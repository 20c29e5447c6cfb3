package shown

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cmdai/cmdai/search/optrank"
)

// Compact cuts a long match's text at a word, marks it, and leaves short
// ones and the caller's matches alone.
func TestCompactCutsText(t *testing.T) {
	long := "grep(1) option -c, --count\nSuppress normal output; instead print a count of matching lines for each input file. " + strings.Repeat("More words here. ", 20)
	orig := []Match{{ID: "a", Text: long}, {ID: "b", Text: "short"}}
	hits := []CommandHit{{Command: "grep", Matches: orig}}
	got := Compact(hits, 0, 0)[0].Matches
	if len(got) != 2 || !got[0].Truncated || got[1].Truncated || got[1].Text != "short" {
		t.Fatalf("Compact: %+v", got)
	}
	if len(got[0].Text) > DefaultMatchText+len(" …") || !strings.HasSuffix(got[0].Text, " …") || !strings.HasPrefix(long, strings.TrimSuffix(got[0].Text, " …")) {
		t.Errorf("cut text %q (%d bytes), want at most %d bytes of the start, cut at a word, with \" …\"", got[0].Text, len(got[0].Text), DefaultMatchText)
	}
	if orig[0].Text != long || orig[0].Truncated {
		t.Errorf("Compact changed the caller's match: %+v", orig[0])
	}
	if got := Compact([]CommandHit{{Matches: []Match{{Text: long}}}}, -1, -1)[0].Matches[0]; got.Text != long || got.Truncated {
		t.Errorf("Compact(-1, -1) cut the text: %q", got.Text)
	}
	// a default answer fits optrank.AnswerBudget: the first command keeps
	// more of its chosen matches than the others
	var many []CommandHit
	for _, c := range []string{"tar", "gzip", "zip", "cpio", "ar"} {
		h := CommandHit{Command: c, Score: 1.0 / 3, Chosen: 8}
		for j := range 8 {
			h.Matches = append(h.Matches, Match{ID: c + "#" + strings.Repeat("o", j), Score: 2.0 / 3, Text: long})
		}
		many = append(many, h)
	}
	fit := Compact(many, 0, 0)
	b, _ := json.Marshal(fit)
	if len(b) > optrank.AnswerBudget || len(fit[0].Matches) <= len(fit[2].Matches) || fit[0].Chosen != len(fit[0].Matches) || fit[0].Score != 0.3333 {
		t.Errorf("Compact(0, 0) of 5 commands of 8 long matches: %d bytes (budget %d), %d and %d matches for the first and third, chosen %d, score %v", len(b), optrank.AnswerBudget, len(fit[0].Matches), len(fit[2].Matches), fit[0].Chosen, fit[0].Score)
	}
	if len(fit[1].Matches[1].Text) > ChosenMatchText+len(" …") {
		t.Errorf("a second match of %d bytes, want at most ChosenMatchText (%d)", len(fit[1].Matches[1].Text), ChosenMatchText)
	}
	// no space to cut at, multibyte runes: a rune boundary
	u := strings.Repeat("é", 300)
	if c := cutText(u, 201); !strings.HasSuffix(c, " …") || len(c) > 201+len(" …") || !utf8.ValidString(c) {
		t.Errorf("cutText of %d bytes of é: %q", len(u), c)
	}
}

// Whole shows as many matches as a default answer, with their whole
// texts.
func TestWholeShowsWhatADefaultAnswerShowsWhole(t *testing.T) {
	long := "tar(1) option -C, --directory DIR\nChange to DIR before performing any operations. " + strings.Repeat("More words. ", 40)
	var hits []CommandHit
	for _, c := range []string{"tar", "gzip", "zip", "cpio", "ar"} {
		h := CommandHit{Command: c, Chosen: 12}
		for j := range 12 {
			h.Matches = append(h.Matches, Match{ID: c + "#" + strings.Repeat("o", j), Text: long})
		}
		hits = append(hits, h)
	}
	cut := Compact(slices.Clone(hits), 0, 0)
	whole := Whole(hits)
	for i := range hits {
		if len(whole[i].Matches) != len(cut[i].Matches) || whole[i].Chosen != cut[i].Chosen || whole[i].Matches[0].Text != long || whole[i].Matches[0].Truncated {
			t.Errorf("%s: Whole shows %d matches (chosen %d, first %d bytes), a default answer %d (chosen %d): want as many, whole", hits[i].Command, len(whole[i].Matches), whole[i].Chosen, len(whole[i].Matches[0].Text), len(cut[i].Matches), cut[i].Chosen)
		}
	}
	if len(cut[0].Matches) == 12 || len(cut[4].Matches) >= len(cut[0].Matches) {
		t.Errorf("a default answer of 5 commands of 12 long matches keeps %d and %d: want fewer than 12, the first command the most", len(cut[0].Matches), len(cut[4].Matches))
	}
}

// A command's matches past its first show what the option does: its
// first sentence, or its start when that sentence runs long; an example
// keeps its command line.
func TestLaterOptionsShowTheirFirstSentence(t *testing.T) {
	opt := "tar(1) option -C, --directory DIR\nChange to DIR before performing any operations. This option is order-sensitive, i.e. it affects all options that follow."
	ex := "tar(1) example\nExtract into a directory, e.g. /srv:\n\ntar -xzf a.tgz -C /srv and then a long tail of words that goes on and on past the limit"
	h := []CommandHit{{Command: "tar", Chosen: 3, Matches: []Match{
		{ID: "a", Kind: "option", Text: opt}, {ID: "b", Kind: "option", Text: opt}, {ID: "c", Kind: "example", Text: ex},
	}}}
	got := Compact(h, 0, 0)[0].Matches
	want := "tar(1) option -C, --directory DIR\nChange to DIR before performing any operations. …"
	for j := range 2 {
		if got[j].Text != want || !got[j].Truncated {
			t.Errorf("match %d: %q, want %q", j, got[j].Text, want)
		}
	}
	if !strings.Contains(got[2].Text, "tar -xzf a.tgz -C /srv") || !got[2].Truncated || len(got[2].Text) > ChosenMatchText+len(" …") {
		t.Errorf("example %q: want its command line kept, cut at %d bytes", got[2].Text, ChosenMatchText)
	}
	// "i.e. " early on ends no sentence; no sentence within the limit: cut at a word
	if s, cut := firstSentence("x(1) option -q\ni.e. quiet mode that says nothing at all about anything whatsoever ever again in any way", 60); !cut || !strings.HasSuffix(s, " …") || strings.HasSuffix(s, "i.e. …") {
		t.Errorf("firstSentence: %q, %v", s, cut)
	}
}

// An example whose command line starts past the cut keeps it: what it
// does is cut shorter instead.
func TestExampleKeepsItsCommandLine(t *testing.T) {
	ex := "find(1) example\nTraverse the filesystem just once, listing set-user-ID files and directories into /root/suid.txt and large files into /root/big.txt, which takes a while on a big disk.\n\n$ find / \\\n\\( -size +100M -fprintf /root/big.txt '%p\\n' \\)\n\nThis example uses the line-continuation character."
	h := []CommandHit{{Command: "find", Chosen: 2, Matches: []Match{{ID: "a", Kind: "option", Text: "find(1) option -size n\nFile uses n units of space."}, {ID: "b", Kind: "example", Text: ex}}}}
	got := Compact(h, 0, 0)[0].Matches[1]
	if !got.Truncated || !strings.HasPrefix(got.Text, "find(1) example\nTraverse the filesystem") || !strings.HasSuffix(got.Text, "$ find / \\\n\\( -size +100M -fprintf /root/big.txt '%p\\n' \\)") || len(got.Text) > ChosenMatchText+len(" …") {
		t.Errorf("example cut to %q (%d bytes): want its heading, the start of what it does and its whole command line within %d bytes", got.Text, len(got.Text), ChosenMatchText)
	}
	// no command line to keep: its start
	plain := strings.Repeat("Some prose about the example. ", 10)
	if got := exampleCut("find(1) example\n"+plain, "find", 100); got != cutText("find(1) example\n"+plain, 100) {
		t.Errorf("exampleCut without a command line: %q", got)
	}
}

// A compact answer's options and examples leave out their id, section
// and score, and an option its "tar(1) option" heading: what an agent
// builds a command line from, in fewer bytes. --full (-1, -1) keeps
// them, the Go values keep their ids (index eval reads them), and a
// passage keeps all.
func TestCompactJSONIsLean(t *testing.T) {
	matches := func() []Match {
		return []Match{
			{ID: "tar.1#OPTIONS#-C", Kind: "option", Section: "OPTIONS", Option: "-C", Score: 0.5, Text: "tar(1) option -C, --directory DIR\nChange to DIR before performing any operations."},
			{ID: "tar.1#EXAMPLES#1", Kind: "example", Section: "EXAMPLES", Score: 0.4, Text: "tar(1) example\nExtract into /tmp:\n\n$ tar -xf a.tar -C /tmp"},
			{ID: "tar.1#DESCRIPTION", Kind: "section", Section: "DESCRIPTION", Score: 0.3, Text: "tar(1) DESCRIPTION\nGNU tar saves many files together."},
		}
	}
	decode := func(hits []CommandHit) []map[string]any {
		t.Helper()
		b, err := json.Marshal(hits)
		if err != nil {
			t.Fatal(err)
		}
		var out []struct{ Matches []map[string]any }
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out[0].Matches
	}
	compact := Compact([]CommandHit{{Command: "tar", Matches: matches()}}, 3, 0)
	got := decode(compact)
	for i, m := range got[:2] {
		if _, ok := m["id"]; ok || m["section"] != nil || m["score"] != nil || m["kind"] == nil {
			t.Errorf("compact match %d: %v, want no id, section or score, a kind", i, m)
		}
	}
	if got[0]["text"] != "-C, --directory DIR\nChange to DIR before performing any operations." || got[0]["option"] != "-C" {
		t.Errorf("compact option: %v, want its label and text without the heading", got[0])
	}
	if got[1]["text"] != matches()[1].Text {
		t.Errorf("compact example text %q, want %q", got[1]["text"], matches()[1].Text)
	}
	if got[2]["id"] != "tar.1#DESCRIPTION" || got[2]["section"] != "DESCRIPTION" || got[2]["score"] != 0.3 {
		t.Errorf("compact passage: %v, want its id, section and score", got[2])
	}
	if compact[0].Matches[0].ID != "tar.1#OPTIONS#-C" {
		t.Errorf("Compact dropped the Go value's id: %+v", compact[0].Matches[0])
	}
	for i, m := range decode(Compact([]CommandHit{{Command: "tar", Matches: matches()}}, -1, -1)) {
		want := matches()[i]
		if m["id"] != want.ID || m["section"] != want.Section || m["score"] != want.Score || m["text"] != want.Text {
			t.Errorf("--full match %d: %v, want %+v", i, m, want)
		}
	}
}

// The lean JSON fits more chosen records in a default answer than the
// whole JSON would; the text answer (Whole) keeps to what the whole
// JSON fits, so that `-k 3` stays within a screen.
func TestLeanAnswerHoldsMoreThanTheText(t *testing.T) {
	var hits []CommandHit
	for _, c := range []string{"tar", "gzip", "zip", "cpio", "ar"} {
		h := CommandHit{Command: c, Chosen: 12}
		for j := range 12 {
			h.Matches = append(h.Matches, Match{ID: fmt.Sprintf("%s.1#OPTIONS#--opt%d", c, j), Kind: "option", Section: "OPTIONS", Option: fmt.Sprintf("--opt%d", j), Score: 0.51234,
				Text: fmt.Sprintf("%s(1) option -%c, --opt%d N\nTwiddle bit %d of every file in place.", c, 'a'+j, j, j)})
		}
		hits = append(hits, h)
	}
	total := func(hs []CommandHit) (n int) {
		for _, h := range hs {
			n += len(h.Matches)
		}
		return n
	}
	lean, text := Compact(slices.Clone(hits), 0, 0), Whole(slices.Clone(hits))
	b, _ := json.Marshal(lean)
	if total(lean) <= total(text) || total(text) == 0 || len(b) > optrank.AnswerBudget {
		t.Errorf("a default answer of %d bytes shows %d records, the text %d: want more in the JSON, within %d bytes", len(b), total(lean), total(text), optrank.AnswerBudget)
	}
}
