package ranker

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Fused are the weights of fused mode (ranker.Fused): reciprocal rank fusion of
// the semantic ranking with field-aware keyword channels (BM25 over
// chunks of one kind each, and over whole pages) and the commands the
// request names.
type Fused struct {
	Semantic float64 `json:"semantic"`
	Keyword  float64 `json:"keyword"` // BM25 over every chunk (hybrid's keyword channel)
	Summary  float64 `json:"summary"` // BM25 over NAME/summary chunks alone
	Option   float64 `json:"option"`  // BM25 over option chunks alone
	Example  float64 `json:"example"` // BM25 over example chunks alone
	Section  float64 `json:"section"` // BM25 over other sections' chunks alone
	Page     float64 `json:"page"`    // BM25 over whole pages (one document per command)
	Named    float64 `json:"named"`   // commands the request names (bm25.Named)
	// RRFK is fusion's k: a larger one flattens the gap between ranks.
	RRFK float64 `json:"rrf_k"`
	// SemSummaryBonus and SemSupport replace search's semantic rule's weights in the
	// semantic channel's aggregation of chunks into commands.
	SemSummaryBonus float64 `json:"sem_summary_bonus"`
	SemSupport      float64 `json:"sem_support"`
	// Subcommand is taken off a subcommand page's fused score (git-mv(1)
	// must match better than mv(1) to come first): learned mode's
	// subcommand feature at weight -Subcommand.
	Subcommand float64 `json:"subcommand"`
}

// DefaultFused is fused mode's weights, chosen on the TRAIN part of the
// NL2Bash split alone (BENCHMARKS.md, "Ranking levers, issue #18"): a
// grid over the channels' weights, rrf_k and the semantic aggregation,
// then the middle of the plateau of best hit@1 and MRR@10 rather than its
// single best cell (one request is 0.26 points there). The chunk-level
// keyword channel and the option, example and other-section channels
// each lowered hit@1 on train, so they weigh 0; a prior on a command's
// page length did not help either. Subcommand, 0.03, is the middle of
// the plateau of MRR@10 on both train sets (0.02 to 0.05) once the index
// held subcommand pages (BENCHMARKS.md, "Subcommand pages").
var DefaultFused = Fused{Semantic: 1, Summary: 0.3, Page: 0.3, Named: 0.2, RRFK: 10,
	SemSummaryBonus: 0.15, SemSupport: 0.05, Subcommand: 0.03}

// ParseFused reads weights written as JSON (Fused's field
// names); a field left out keeps DefaultFused's value. For tuning on a
// train split (`index eval --fused-weights`), never on the figures
// reported.
func ParseFused(s string) (Fused, error) {
	w := DefaultFused
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return w, fmt.Errorf("fused weights %q: %v (want JSON such as {\"page\": 0.5, \"rrf_k\": 20}; fields: semantic, keyword, summary, option, example, section, page, named, rrf_k, sem_summary_bonus, sem_support, subcommand)", s, err)
	}
	for name, v := range map[string]float64{"semantic": w.Semantic, "keyword": w.Keyword, "summary": w.Summary, "option": w.Option,
		"example": w.Example, "section": w.Section, "page": w.Page, "named": w.Named, "rrf_k": w.RRFK,
		"sem_summary_bonus": w.SemSummaryBonus, "sem_support": w.SemSupport, "subcommand": w.Subcommand} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return w, fmt.Errorf("fused weights: %s is %v: weights are 0 or more", name, v)
		}
	}
	return w, nil
}
