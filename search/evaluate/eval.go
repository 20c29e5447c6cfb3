package evaluate

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
	// Options are the options of Command the request needs, as its page
	// spells them (["-x", "-C"]); Line is a command line that does it
	// (NL2Bash's), whose options for Command are the ones needed. Either
	// makes the request count for the flag figures (FlagMetrics).
	Options []string `json:"options,omitempty"`
	Line    string   `json:"line,omitempty"`
}

// Text is the request, whichever key held it.
func (q EvalQuery) Text() string {
	if q.Query != "" {
		return q.Query
	}
	return q.Request
}

// Metrics are the rank figures of a set of requests.
type Metrics struct {
	Queries int     `json:"queries"`
	Hit1    float64 `json:"hit_at_1"`
	Hit5    float64 `json:"hit_at_5"`
	Hit10   float64 `json:"hit_at_10"`
	MRR10   float64 `json:"mrr_at_10"`
}

// EvalResult sums up one mode over a query set.
type EvalResult struct {
	Mode string `json:"mode"`
	Metrics
	// Flags are the flag figures, for the requests that carry the
	// options they need (nil when none does).
	Flags *FlagMetrics `json:"flag_figures,omitempty"`
	// AnswerBytes are the sizes of the answers as `cmdai search -k 5
	// --json` prints them (nil when not measured).
	AnswerBytes *Bytes  `json:"answer_bytes,omitempty"`
	NotIndexed  int     `json:"not_indexed"`
	P50Millis   float64 `json:"latency_p50_ms"`
	P95Millis   float64 `json:"latency_p95_ms"`
	// BySource breaks the figures down by where the expected command's
	// records come from (man, help, custom): a ranking may serve one
	// source well and another badly.
	BySource map[string]Metrics `json:"by_source,omitempty"`
	// Compared is this mode against the baseline mode on the same
	// requests (index eval --compare); nil for the baseline itself.
	Compared *Comparison `json:"compared,omitempty"`
	// Outcomes are the per-request ranks, in the order of the requests
	// evaluated (the not-indexed ones left out): what misses files and
	// paired comparisons read.
	Outcomes []Outcome `json:"-"`
}

// Ranked is one command a ranking returned, with its score in that
// ranking.
type Ranked struct {
	Command string `json:"command"`
	// Parent is the command a subcommand's page belongs to (git for
	// git-commit): such a page answers a request for its parent.
	Parent string  `json:"parent,omitempty"`
	Score  float64 `json:"score"`
	// Shown are the records the answer shows of the command (its
	// matches after search.Compact): what the flag figures read.
	Shown []Shown `json:"-"`
}

// Shown is one record an answer shows.
type Shown struct {
	ID   string
	Kind string
	Text string
}

// Outcome is how one request fared in one mode.
type Outcome struct {
	Query   string `json:"query"`
	Command string `json:"command"` // the expected command, as indexed
	Source  string `json:"source,omitempty"`
	// Rank is the expected command's rank, 1-based; 0 when it is not in
	// the k returned.
	Rank int      `json:"rank"`
	Top  []Ranked `json:"top"` // the first missTop returned
	// Need is the number of needed option records found in the index
	// (-1: the request carries no options); Flag says the expected
	// command's block, within the first FlagTop, shows one of them.
	Need int  `json:"need"`
	Flag bool `json:"flag"`
}

// RR is the request's reciprocal rank at 10: 1/rank, 0 past rank 10.
func (o Outcome) RR() float64 {
	if o.Rank < 1 || o.Rank > 10 {
		return 0
	}
	return 1 / float64(o.Rank)
}

// missTop is how many returned commands an outcome keeps: enough to see
// what beat the expected command.
const missTop = 5

// Ranker answers one request with commands, best first.
type Ranker func(ctx context.Context, request string, k int) ([]Ranked, error)

// Evaluate runs every query whose command is indexed (resolve maps a
// name or alias to the indexed command, ok=false when it is not) and
// scores the ranks. sourceOf names an indexed command's source (man,
// help, custom) for the per-source figures; nil leaves them out.
func Evaluate(ctx context.Context, mode string, queries []EvalQuery, k int, resolve func(string) (string, bool), sourceOf func(string) string, rank Ranker) (EvalResult, error) {
	return EvaluateFlags(ctx, mode, queries, k, resolve, sourceOf, nil, rank)
}

// EvaluateFlags is Evaluate, with the flag figures of the requests that
// carry options: need gives a request's needed option records (nil: no
// flag figures).
func EvaluateFlags(ctx context.Context, mode string, queries []EvalQuery, k int, resolve func(string) (string, bool), sourceOf func(string) string, need NeedFunc, rank Ranker) (EvalResult, error) {
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
		o := Outcome{Query: q.Text(), Command: want, Top: got[:min(len(got), missTop)], Need: -1}
		if sourceOf != nil {
			o.Source = sourceOf(want)
		}
		for i, c := range got {
			if c.Command == want || c.Parent == want {
				o.Rank = i + 1
				break
			}
		}
		if need != nil && (len(q.Options) > 0 || q.Line != "") {
			n, any, err := need(ctx, q, want)
			if err != nil {
				return res, err
			}
			if any {
				o.Need, o.Flag = len(n), flagShown(got, want, n)
			}
		}
		res.Outcomes = append(res.Outcomes, o)
	}
	res.Metrics = metricsOf(res.Outcomes)
	if need != nil {
		res.Flags = flagMetricsOf(res.Outcomes)
	}
	if sourceOf != nil {
		res.BySource = bySource(res.Outcomes)
	}
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		pct := func(p int) float64 {
			i := min(len(lat)-1, max(0, (len(lat)*p+99)/100-1))
			return float64(lat[i].Microseconds()) / 1000
		}
		res.P50Millis, res.P95Millis = pct(50), pct(95)
	}
	return res, nil
}

// metricsOf sums up outcomes: hit@n is the share whose expected command
// is within the first n, MRR@10 the mean reciprocal rank (0 past 10).
func metricsOf(os []Outcome) Metrics {
	m := Metrics{Queries: len(os)}
	if len(os) == 0 {
		return m
	}
	for _, o := range os {
		if o.Rank < 1 {
			continue
		}
		if o.Rank <= 1 {
			m.Hit1++
		}
		if o.Rank <= 5 {
			m.Hit5++
		}
		if o.Rank <= 10 {
			m.Hit10++
		}
		m.MRR10 += o.RR()
	}
	n := float64(len(os))
	m.Hit1, m.Hit5, m.Hit10, m.MRR10 = m.Hit1/n, m.Hit5/n, m.Hit10/n, m.MRR10/n
	return m
}

// bySource is metricsOf per expected command's source ("unknown" when
// the index did not say).
func bySource(os []Outcome) map[string]Metrics {
	groups := map[string][]Outcome{}
	for _, o := range os {
		src := o.Source
		if src == "" {
			src = "unknown"
		}
		groups[src] = append(groups[src], o)
	}
	out := map[string]Metrics{}
	for src, g := range groups {
		out[src] = metricsOf(g)
	}
	return out
}

// Misses are the outcomes whose expected command is not first.
func (r EvalResult) Misses() []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		if o.Rank != 1 {
			out = append(out, o)
		}
	}
	return out
}
