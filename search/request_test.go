package search

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cmdai/cmdai/search/kwstore"
)

// Answer keeps the first Matches matches of each command (3 by default,
// all below 0), and the ranking is the one Search gives.
func TestAnswerTrimsMatches(t *testing.T) {
	f := hybridFixture()
	f.recs = append(f.recs, rec("gamma#2", "gamma", "option", "compress archive quickly", nil),
		rec("gamma#3", "gamma", "option", "compress archive slowly", nil),
		rec("gamma#4", "gamma", "option", "archive compress level", nil))
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s := Searcher{Coll: f, Keywords: kw}
	ctx := context.Background()
	full, err := s.Search(ctx, "compress archive", 5, ModeKeyword)
	if err != nil || full[0].Command != "gamma" || len(full[0].Matches) != 4 {
		t.Fatalf("keyword search: %+v, %v; want gamma first with 4 matches", full, err)
	}
	for _, c := range []struct{ matches, want int }{{0, DefaultMatches}, {1, 1}, {2, 2}, {10, 4}, {-1, 4}} {
		a, err := s.Answer(ctx, Request{Query: "compress archive", K: 5, Mode: ModeKeyword, Matches: c.matches, MatchText: -1})
		if err != nil {
			t.Fatal(err)
		}
		if commands(a.Commands) != commands(full) || a.Degraded != "" {
			t.Errorf("Matches %d: commands %q (degraded %q), want %q", c.matches, commands(a.Commands), a.Degraded, commands(full))
		}
		if got := len(a.Commands[0].Matches); got != c.want {
			t.Errorf("Matches %d: gamma has %d matches, want %d", c.matches, got, c.want)
		}
		if a.Commands[0].Matches[0].ID != full[0].Matches[0].ID {
			t.Errorf("Matches %d: first match %s, want the best, %s", c.matches, a.Commands[0].Matches[0].ID, full[0].Matches[0].ID)
		}
	}
}

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
	// no space to cut at, multibyte runes: a rune boundary
	u := strings.Repeat("é", 300)
	if c := cutText(u, 201); !strings.HasSuffix(c, " …") || len(c) > 201+len(" …") || !utf8.ValidString(c) {
		t.Errorf("cutText of %d bytes of é: %q", len(u), c)
	}
}
