package report

import (
	"math"
	"testing"
)

func TestMcNemarExact(t *testing.T) {
	for _, c := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1}, {5, 5, 1}, {0, 10, 2 * math.Pow(0.5, 10)}, {10, 0, 2 * math.Pow(0.5, 10)},
		{1, 9, 2 * 11 * math.Pow(0.5, 10)}, // P(X<=1), n=10: (1+10)/1024, twice
	} {
		if got := McNemar(c.b, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("McNemar(%d, %d) = %g, want %g", c.b, c.c, got, c.want)
		}
	}
}

func TestWilsonAndTiming(t *testing.T) {
	lo, hi := Wilson(0, 77)
	if lo != 0 || hi < 0.04 || hi > 0.05 {
		t.Errorf("Wilson(0, 77) = %g..%g, want 0..~0.047", lo, hi)
	}
	lo, hi = Wilson(50, 100)
	if math.Abs(lo-0.4038) > 1e-3 || math.Abs(hi-0.5962) > 1e-3 {
		t.Errorf("Wilson(50, 100) = %g..%g, want 0.404..0.596", lo, hi)
	}
	tm := TimingOf([]float64{5, 1, 3, 2, 4})
	if tm.P50 != 3 || tm.Mean != 3 || tm.Max != 5 || tm.P95 != 5 {
		t.Errorf("TimingOf = %+v", tm)
	}
}
