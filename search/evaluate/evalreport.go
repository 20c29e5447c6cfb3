package evaluate

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/evalstat"
)

// Comparison is one mode against a baseline mode on the same requests:
// paired wins and losses of per-request reciprocal rank at 10, the sign
// test over them, and the differences of the headline figures in points
// (hundredths), so that a +2-point change is read with its p-value.
type Comparison struct {
	Baseline string `json:"baseline"`
	evalstat.Paired
	Hit1Points  float64 `json:"hit_at_1_points"`
	Hit5Points  float64 `json:"hit_at_5_points"`
	MRR10Points float64 `json:"mrr_at_10_points"`
}

// Compare pairs other's outcomes with base's request by request. Both
// must come from the same query file (Evaluate keeps its order); a
// different request set is an error.
func Compare(base, other EvalResult) (*Comparison, error) {
	if len(base.Outcomes) != len(other.Outcomes) {
		return nil, fmt.Errorf("compare %s with %s: %d requests against %d; evaluate both on the same file", other.Mode, base.Mode, len(other.Outcomes), len(base.Outcomes))
	}
	b, o := make([]float64, len(base.Outcomes)), make([]float64, len(other.Outcomes))
	for i := range base.Outcomes {
		if base.Outcomes[i].Query != other.Outcomes[i].Query {
			return nil, fmt.Errorf("compare %s with %s: request %d differs (%q, %q); evaluate both on the same file", other.Mode, base.Mode, i+1, other.Outcomes[i].Query, base.Outcomes[i].Query)
		}
		b[i], o[i] = base.Outcomes[i].RR(), other.Outcomes[i].RR()
	}
	return &Comparison{
		Baseline:    base.Mode,
		Paired:      evalstat.Compare(b, o),
		Hit1Points:  100 * (other.Hit1 - base.Hit1),
		Hit5Points:  100 * (other.Hit5 - base.Hit5),
		MRR10Points: 100 * (other.MRR10 - base.MRR10),
	}, nil
}

// Miss is one line of a misses file: a request whose expected command
// was not first in one mode.
type Miss struct {
	Query   string `json:"query"`
	Command string `json:"command"`
	Source  string `json:"source,omitempty"`
	Mode    string `json:"mode"`
	// Rank is the expected command's rank, null when it was not among
	// the k returned.
	Rank *int     `json:"rank"`
	Top  []Ranked `json:"top"`
}

// WriteMisses writes, atomically, one JSON line per missed request per
// mode, modes in the order given, requests in file order.
func WriteMisses(path string, results []EvalResult) error {
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range results {
			for _, o := range r.Misses() {
				m := Miss{Query: o.Query, Command: o.Command, Source: o.Source, Mode: r.Mode, Top: o.Top}
				if o.Rank > 0 {
					rank := o.Rank
					m.Rank = &rank
				}
				if m.Top == nil {
					m.Top = []Ranked{}
				}
				if err := enc.Encode(m); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// SourcesOf maps each command of a keyword index to the source of its
// records (man, help, custom), for Evaluate's per-source figures. A
// command with a custom doc counts as custom (the doc is what its author
// added it for), else man before help; hints name no command of their
// own. An index saved without its chunks' metadata yields an empty map:
// rebuild it (cmdai index refresh) to get the breakdown.
func SourcesOf(ix *bm25.Index) map[string]string {
	out := map[string]string{}
	if ix == nil || !ix.HasChunks() {
		return out
	}
	rank := map[index.Source]int{index.SourceCustom: 3, index.SourceMan: 2, index.SourceHelp: 1}
	for i := 0; i < ix.Len(); i++ {
		_, md := ix.Chunk(i)
		if md.Command == "" || md.Source == index.SourceHint {
			continue
		}
		if cur, ok := out[md.Command]; !ok || rank[md.Source] > rank[index.Source(cur)] {
			out[md.Command] = string(md.Source)
		}
	}
	return out
}

// OutcomeLine is one line of an outcomes file: how one request fared in
// one mode.
type OutcomeLine struct {
	Mode    string `json:"mode"`
	Query   string `json:"query"`
	Command string `json:"command"`
	// Rank is the expected command's rank, 0 when not among the k.
	Rank int  `json:"rank"`
	Need int  `json:"need"`
	Flag bool `json:"flag"`
}

// WriteOutcomes writes, atomically, one JSON line per request per mode,
// modes in the order given, requests in file order: what
// scripts/research/paired-outcomes.py pairs across two runs.
func WriteOutcomes(path string, results []EvalResult) error {
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range results {
			for _, o := range r.Outcomes {
				if err := enc.Encode(OutcomeLine{Mode: r.Mode, Query: o.Query, Command: o.Command, Rank: o.Rank, Need: o.Need, Flag: o.Flag}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
