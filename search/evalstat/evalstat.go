// Package evalstat says whether one ranking beats another on the same
// requests by more than chance: paired wins and losses of a per-request
// score, and the exact two-sided sign test over them.
package evalstat

import "math"

// Paired is how a ranking fared against a baseline, request by request.
type Paired struct {
	Wins   int `json:"wins"`   // requests it scored higher on
	Losses int `json:"losses"` // requests the baseline scored higher on
	Ties   int `json:"ties"`
	// P is the two-sided exact sign test's p-value (ties dropped): the
	// chance of a split at least this uneven if neither ranking were
	// better. 1 when every request ties.
	P float64 `json:"sign_test_p"`
}

// Compare pairs other[i] with base[i] (the same request's score in each
// ranking). It panics when the lengths differ: the caller pairs the same
// requests, so a difference is a bug, not input.
func Compare(base, other []float64) Paired {
	if len(base) != len(other) {
		panic("evalstat.Compare: scores of different request sets")
	}
	var p Paired
	for i := range base {
		switch {
		case other[i] > base[i]:
			p.Wins++
		case other[i] < base[i]:
			p.Losses++
		default:
			p.Ties++
		}
	}
	p.P = SignTest(p.Wins, p.Losses)
	return p
}

// SignTest is the exact two-sided sign test: twice the binomial(n, 1/2)
// probability of min(wins, losses) or fewer successes, n = wins+losses,
// at most 1. Computed in log space so that thousands of requests do not
// overflow a binomial coefficient.
func SignTest(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return 1
	}
	k := min(wins, losses)
	lgN, _ := math.Lgamma(float64(n + 1))
	var tail float64
	for i := 0; i <= k; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgNI, _ := math.Lgamma(float64(n - i + 1))
		tail += math.Exp(lgN - lgI - lgNI - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}
