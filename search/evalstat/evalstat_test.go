package evalstat

import (
	"math"
	"testing"
)

// Hand-computed: 9 wins 1 loss, P = 2*(C(10,0)+C(10,1))/2^10 = 22/1024.
func TestSignTest(t *testing.T) {
	cases := []struct {
		wins, losses int
		want         float64
	}{
		{9, 1, 22.0 / 1024},      // 0.0215
		{1, 9, 22.0 / 1024},      // two-sided: the direction does not matter
		{0, 0, 1},                // all ties
		{5, 5, 1},                // an even split, capped at 1
		{6, 0, 2.0 / 64},         // 0.03125
		{3, 2, 1},                // 2*(1+5+10)/32 = 1
		{10, 2, 2 * 79.0 / 4096}, // 2*(1+12+66)/2^12 = 0.0386
	}
	for _, c := range cases {
		if got := SignTest(c.wins, c.losses); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("SignTest(%d, %d) = %.6f, want %.6f", c.wins, c.losses, got, c.want)
		}
	}
	// thousands of requests: no overflow, a tiny p for a lopsided split
	// and about 1 for an even one
	if p := SignTest(1200, 1000); p <= 0 || p > 0.0001 {
		t.Errorf("SignTest(1200, 1000) = %g, want a small positive p", p)
	}
	if p := SignTest(1000, 1000); math.Abs(p-1) > 1e-6 {
		t.Errorf("SignTest(1000, 1000) = %g, want 1", p)
	}
}

func TestCompare(t *testing.T) {
	base := []float64{1, 0.5, 0, 0, 1, 0.2}
	other := []float64{1, 1, 0.1, 0, 0.5, 0.2}
	got := Compare(base, other)
	if got.Wins != 2 || got.Losses != 1 || got.Ties != 3 {
		t.Fatalf("Compare = %+v, want 2 wins 1 loss 3 ties", got)
	}
	if math.Abs(got.P-1) > 1e-9 { // 2*(1+3)/8 = 1
		t.Errorf("p = %g, want 1", got.P)
	}
	if c := Compare([]float64{0.5, 0.5}, []float64{0.5, 0.5}); c.Ties != 2 || c.P != 1 {
		t.Errorf("all ties: %+v, want 2 ties and p 1", c)
	}
}
