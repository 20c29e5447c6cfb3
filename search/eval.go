package search

import (
	"context"
	"sort"
	"time"
)

// EvalQuery is one line of an evaluation file: a request and the command
// that answers it.
type EvalQuery struct {
	Query   string `json:"query"`
	Request string `json:"request"` // the same, as cmd/cmdai/testdata names it
	Command string `json:"command"`
}

// Text is the request, whichever key held it.
func (q EvalQuery) Text() string {
	if q.Query != "" {
		return q.Query
	}
	return q.Request
}

// EvalResult sums up one mode over a query set.
type EvalResult struct {
	Mode       string  `json:"mode"`
	Queries    int     `json:"queries"`
	NotIndexed int     `json:"not_indexed"`
	Hit1       float64 `json:"hit_at_1"`
	Hit5       float64 `json:"hit_at_5"`
	Hit10      float64 `json:"hit_at_10"`
	MRR10      float64 `json:"mrr_at_10"`
	P50Millis  float64 `json:"latency_p50_ms"`
	P95Millis  float64 `json:"latency_p95_ms"`
}

// Ranker answers one request with commands, best first.
type Ranker func(ctx context.Context, request string, k int) ([]string, error)

// Evaluate runs every query whose command is indexed (resolve maps a
// name or alias to the indexed command, ok=false when it is not) and
// scores the ranks.
func Evaluate(ctx context.Context, mode string, queries []EvalQuery, k int, resolve func(string) (string, bool), rank Ranker) (EvalResult, error) {
	res := EvalResult{Mode: mode}
	var lat []time.Duration
	for _, q := range queries {
		want, ok := resolve(q.Command)
		if !ok {
			res.NotIndexed++
			continue
		}
		t0 := time.Now()
		got, err := rank(ctx, q.Text(), k)
		if err != nil {
			return res, err
		}
		lat = append(lat, time.Since(t0))
		res.Queries++
		for i, c := range got {
			if i >= 10 {
				break
			}
			if c != want {
				continue
			}
			if i < 1 {
				res.Hit1++
			}
			if i < 5 {
				res.Hit5++
			}
			res.Hit10++
			res.MRR10 += 1 / float64(i+1)
			break
		}
	}
	if res.Queries > 0 {
		n := float64(res.Queries)
		res.Hit1, res.Hit5, res.Hit10, res.MRR10 = res.Hit1/n, res.Hit5/n, res.Hit10/n, res.MRR10/n
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		pct := func(p int) float64 {
			i := min(len(lat)-1, max(0, (len(lat)*p+99)/100-1))
			return float64(lat[i].Microseconds()) / 1000
		}
		res.P50Millis, res.P95Millis = pct(50), pct(95)
	}
	return res, nil
}
