package ranker

import (
	"slices"
	"testing"
)

func TestSetTrained(t *testing.T) {
	if !TrainedOn("ls") || !TrainedOn("find") {
		t.Fatalf("ls and find are named by train requests, TrainedOn says otherwise")
	}
	if TrainedOn("no-such-command") || TrainedOn("") {
		t.Fatalf("TrainedOn holds a command no train request names")
	}
	src := map[string]float64{RerankGap: -0.2, RerankRank: 1.0 / 12, AdaptGap: -0.1, AdaptRank: 1.0 / 11}
	on := map[string]float64{}
	for k, v := range src {
		on[k] = v
	}
	SetTrained(on, "ls")
	for _, p := range trainedPairs {
		if on[p[0]] != src[p[1]] {
			t.Errorf("trained ls: %s = %v, want %s's %v", p[0], on[p[0]], p[1], src[p[1]])
		}
	}
	off := map[string]float64{RerankGap: -0.2, AdaptGap: -0.1}
	SetTrained(off, "no-such-command")
	for _, p := range trainedPairs {
		if v, ok := off[p[0]]; !ok || v != 0 {
			t.Errorf("untrained command: %s = %v (set %v), want 0", p[0], v, ok)
		}
	}
	// a reranker without its adapter: the adapter's gated features are 0
	half := map[string]float64{RerankGap: -0.3}
	SetTrained(half, "ls")
	if half[TrainedRerankGap] != -0.3 || half[TrainedAdaptGap] != 0 {
		t.Errorf("reranker alone: %v", half)
	}
	for _, p := range trainedPairs {
		if !slices.Contains(Features(), p[0]) {
			t.Errorf("Features() lacks %s: Score would leave it out", p[0])
		}
		if _, ok := WithAdapter[p[0]]; !ok {
			t.Errorf("WithAdapter has no weight for %s", p[0])
		}
	}
}
