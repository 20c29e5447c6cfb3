package manparse

import (
	"strings"
	"testing"
)

func TestBudgetBoundsProseOnly(t *testing.T) {
	p := parseFile(t, "frob.1")
	// a small max splits sections into several pieces
	all := p.Chunks(ChunkOptions{MaxTokens: 24})
	prose, firsts, conts := 0, 0, 0
	for _, c := range all {
		if c.Kind == KindSection {
			prose += c.Tokens
			if c.part == 0 {
				firsts++
			} else {
				conts++
			}
		}
	}
	if firsts < 2 || conts == 0 {
		t.Fatalf("fixture gives %d sections and %d continuations at MaxTokens 24: the test would prove nothing", firsts, conts)
	}
	if kept, dropped := Budget(all, 0); len(kept) != len(all) || dropped != 0 {
		t.Fatalf("no budget: kept %d of %d, dropped %d", len(kept), len(all), dropped)
	}
	if kept, dropped := Budget(all, prose); len(kept) != len(all) || dropped != 0 {
		t.Fatalf("budget = all the prose: kept %d of %d, dropped %d", len(kept), len(all), dropped)
	}

	budget := prose / 2
	kept, dropped := Budget(all, budget)
	if dropped == 0 || len(kept)+dropped != len(all) {
		t.Fatalf("half budget: kept %d, dropped %d of %d", len(kept), dropped, len(all))
	}
	in := map[string]bool{}
	used := 0
	for _, c := range kept {
		in[c.ID] = true
		if c.Kind == KindSection {
			used += c.Tokens
		}
	}
	if used > budget {
		t.Errorf("kept %d tokens of prose, budget %d", used, budget)
	}
	pos := map[string]int{}
	for i, c := range all {
		pos[c.ID] = i
	}
	for i := 1; i < len(kept); i++ {
		if pos[kept[i-1].ID] > pos[kept[i].ID] {
			t.Errorf("order changed: %s before %s", kept[i-1].ID, kept[i].ID)
		}
	}
	keptCont := false
	for _, c := range kept {
		keptCont = keptCont || (c.Kind == KindSection && c.part > 0)
	}
	for _, c := range all {
		switch {
		case c.Kind != KindSection && !in[c.ID]:
			t.Errorf("%s %s dropped: only prose is budgeted", c.Kind, c.ID)
		case c.Kind == KindSection && c.part == 0 && !in[c.ID] && keptCont && c.Tokens <= budget-used:
			t.Errorf("first piece %s dropped while a continuation was kept", c.ID)
		}
	}
}

func TestBudgetSkipsWhatDoesNotFit(t *testing.T) {
	cs := []Chunk{
		{ID: "x#NAME", Kind: KindSummary, Tokens: 200},
		{ID: "x#DESCRIPTION", Kind: KindSection, Tokens: 30},
		{ID: "x#DESCRIPTION#2", Kind: KindSection, Tokens: 30, part: 1},
		{ID: "x#OPTIONS#-a", Kind: KindOption, Tokens: 300},
		{ID: "x#FILES", Kind: KindSection, Tokens: 5},
		{ID: "x#EXAMPLES#1", Kind: KindExample, Tokens: 100},
	}
	kept, dropped := Budget(cs, 40)
	var ids []string
	for _, c := range kept {
		ids = append(ids, c.ID)
	}
	// both first pieces (30 + 5) before the continuation, which no longer fits
	if got, want := strings.Join(ids, " "), "x#NAME x#DESCRIPTION x#OPTIONS#-a x#FILES x#EXAMPLES#1"; got != want || dropped != 1 {
		t.Errorf("kept %q (dropped %d), want %q (dropped 1)", got, dropped, want)
	}
}
