package evaluate

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Hand-computed ranks 1, 3, 7, 0 (not returned), 12 (returned past 10):
// hit@1 1/5, hit@5 2/5, hit@10 3/5, MRR@10 (1 + 1/3 + 1/7)/5.
func TestMetricsOf(t *testing.T) {
	var os []Outcome
	for _, r := range []int{1, 3, 7, 0, 12} {
		os = append(os, Outcome{Rank: r})
	}
	m := metricsOf(os)
	if m.Queries != 5 || !near(m.Hit1, 0.2) || !near(m.Hit5, 0.4) || !near(m.Hit10, 0.6) || !near(m.MRR10, (1+1.0/3+1.0/7)/5) {
		t.Errorf("metricsOf = %+v", m)
	}
	if m := metricsOf(nil); m != (Metrics{}) {
		t.Errorf("no outcomes: %+v, want zeros", m)
	}
}
