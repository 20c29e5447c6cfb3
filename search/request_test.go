package search

import (
	"context"
	"testing"

	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/shown"
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
	for _, c := range []struct{ matches, want int }{{0, shown.DefaultMatches}, {1, 1}, {2, 2}, {10, 4}, {-1, 4}} {
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
