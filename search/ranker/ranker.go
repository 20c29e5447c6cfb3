// Package ranker is learned mode's scoring: the names of the features
// search computes for each candidate command, the weights fitted on the
// train sets (scripts/research/learn-ranker.py over `cmdai index eval --features`
// of the NL2Bash TRAIN split and search/evaluate/requests/requests-train.jsonl), reading other
// weights, and the linear score.
package ranker

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Feature names: rr_<channel> is 1/(RRFK + rank) in that channel
// (0 when the channel does not hold the command); the rest are described
// in search.Candidates.
const (
	SemGap     = "sem_gap"     // the command's semantic score minus the request's best, floored
	SummaryGap = "summary_gap" // its best NAME/summary chunk's cosine minus the best chunk's, floored
	PageRel    = "page_rel"    // its whole-page BM25 over the request's best
	SummaryRel = "summary_rel" // its NAME/summary BM25 over the request's best
	NameDot    = "name_dot"    // 1 when its name has a dot: rename.ul, mkfs.ext4
	NameVer    = "name_ver"    // 1 when its name ends in a version: llvm-nm-14, python3.11
	Section8   = "section8"    // 1 for system administration commands (man section 8)
	PageSize   = "page_size"   // ln(1 + its chunks in the index) / 5
	Refs       = "refs"        // ln(1 + the pages referring to it) / 5
	SemSummary = "rr_semsum"   // 1/(RRFK + rank) by its NAME/summary chunk's cosine alone
	DescGap    = "desc_gap"    // its one-line description's cosine minus the best candidate's
	DescRank   = "rr_desc"     // 1/(RRFK + rank) among the candidates by that cosine
	Subcommand = "subcommand"  // 1 for a subcommand's page: git-commit(1), ip-route(8)
	RerankGap  = "rerank_gap"  // the reranker's request/description cosine minus the best candidate's
	RerankRank = "rr_rerank"   // 1/(RRFK + rank) among the candidates by that cosine
	NameLen    = "name_len"    // ln(the bytes of its name): the commands people ask for most have short names
	Mentions   = "mentions"    // ln(1 + the other pages naming it in their text) / 5
	AdaptGap   = "adesc_gap"   // desc_gap with the query adapter's request vector
	AdaptRank  = "rr_adesc"    // rr_desc by that cosine
)

// RRFK is the rank constant of the rr_ features: the same as fused
// mode's, so that the fused ranking is one setting of the weights.
const RRFK = 10

// GapFloor is the gap given to a command the semantic channel did not
// bring up (it is below every one that it did).
const GapFloor = -0.3

// Channels are the channels whose rank is a feature, in the order
// their details are taken (the first that holds a command gives them).
var Channels = []string{"semantic", "summary", "keyword", "option", "example", "section", "page", "named"}

// Weights maps a feature name to its weight in the linear score.
type Weights map[string]float64

// Default are learned mode's weights: scripts/research/learn-ranker.py (softmax
// loss over each request's candidates, the L2 penalty, 0.01, chosen by
// 5-fold cross-validation) on `index eval --features` of two train sets
// over this machine's full index, subcommand pages included (refitted
// for them, with the subcommand feature, issue #21): the NL2Bash TRAIN
// split (385 requests indexed) and search/evaluate/requests/requests-train.jsonl (580 of our
// own requests, none close to a test request). BENCHMARKS.md, "Learned
// ranker" and "Subcommand pages", have the commands. (A sem_count feature, the command's chunks among the nearest,
// got a weight of 6e-5 in the first fit: removed.) Refitted with the two
// priors name_len and mentions (issue #32; "Priors" in
// docs/benchmarks/retrieval.md): 5-fold CV on train, hit@1 50.4 -> 51.0,
// MRR@10 0.616 -> 0.626, reciprocal rank 132 better / 82 worse, p = 0.0008.
var Default = Weights{"desc_gap": 5.539, "mentions": 0.8128, "name_dot": -1.623, "name_len": -0.9382, "name_ver": -2.52, "page_rel": 1.2, "page_size": -1.991, "refs": 1.351, "rr_desc": -6.387, "rr_example": -1.54, "rr_keyword": 2.979, "rr_named": -5.523, "rr_option": 1.265, "rr_page": 16.69, "rr_section": 2.562, "rr_semantic": 15.27, "rr_semsum": 0.3263, "rr_summary": 1.515, "section8": -0.751, "sem_gap": 8.769, "subcommand": -1.11, "summary_gap": -0.5866, "summary_rel": 0.2473}

// WithReranker are learned mode's weights when the reranker is installed
// (embed.RerankerName): Default's features plus rerank_gap and rr_rerank,
// fitted the same way (scripts/research/learn-ranker.py, L2 chosen by
// 5-fold cross-validation: 0.0001) on the same two train sets, with every
// train request's reranker features computed by a reranker trained
// without it (scripts/research/reranker/cv_tune.py: out of fold), so
// that the weights trust the reranker as much as it deserves on requests
// it never saw. BENCHMARKS.md, "A reranker trained here". Refitted with
// name_len and mentions like Default: CV hit@1 51.7 -> 52.3, MRR@10
// 0.629 -> 0.639, reciprocal rank 122 better / 77 worse, p = 0.0017.
var WithReranker = Weights{"desc_gap": -11.16, "mentions": 0.837, "name_dot": -1.983, "name_len": -0.7776, "name_ver": -6.261, "page_rel": 1.058, "page_size": -2.043, "refs": 1.201, "rerank_gap": 19.77, "rr_desc": -6.724, "rr_example": -1.433, "rr_keyword": 3.733, "rr_named": -5.886, "rr_option": 2.11, "rr_page": 16.65, "rr_rerank": -0.2575, "rr_section": 2.39, "rr_semantic": 16.63, "rr_semsum": 0.8195, "rr_summary": -0.3842, "section8": -0.6407, "sem_gap": 7.858, "subcommand": -1.285, "summary_gap": -1.253, "summary_rel": 0.2349}

// WithAdapter are learned mode's weights when the reranker comes with its
// query adapter (search/adapter): WithReranker's features plus adesc_gap
// and rr_adesc, fitted the same way (L2 chosen by 5-fold CV: 0.0001) with
// every train request's reranker and adapter features from models
// trained without it (out of fold: cv_tune.py, adapter-features.py).
// "A query adapter" in docs/benchmarks/retrieval.md: CV hit@1 52.5 ->
// 54.5, MRR@10 0.641 -> 0.660, reciprocal rank 150 better / 107 worse,
// p = 0.0087. Refitted with the same four again for the commands the
// train requests name alone (trained.go; issue #43), out of fold as
// before (scripts/research/train-ranker.sh, `make ranker-train`).
var WithAdapter = Weights{"adesc_gap": 5.964, "desc_gap": -8.322, "mentions": 0.6811, "name_dot": -1.588, "name_len": -0.8091, "name_ver": -4.267, "page_rel": 1.07, "page_size": -1.949, "refs": 0.7766, "rerank_gap": 11.11, "rr_adesc": 2.31, "rr_desc": -7.444, "rr_example": -2.863, "rr_keyword": 5.745, "rr_named": -5.392, "rr_option": 2.058, "rr_page": 15.18, "rr_rerank": 12.13, "rr_section": 0.4775, "rr_semantic": 12.36, "rr_semsum": -0.6501, "rr_summary": 0.4276, "section8": -0.6651, "sem_gap": 7.654, "subcommand": -1.311, "summary_gap": -0.5415, "summary_rel": 0.02237, "trained_adesc_gap": 3.039, "trained_rerank_gap": -3.43, "trained_rr_adesc": 21.97, "trained_rr_rerank": -30.24}

// Features names every feature, the rr_ ones first (a fresh slice).
func Features() []string { return append([]string(nil), features...) }

var features = func() []string {
	var out []string
	for _, c := range Channels {
		out = append(out, "rr_"+c)
	}
	return append(out, SemSummary, DescRank, SemGap, SummaryGap, DescGap, PageRel, SummaryRel, NameDot, NameVer, Section8, PageSize, Refs, Subcommand, RerankGap, RerankRank, NameLen, Mentions, AdaptGap, AdaptRank,
		TrainedRerankGap, TrainedRerankRank, TrainedAdaptGap, TrainedAdaptRank)
}()

// Score is the linear score of a candidate's features under w, summed
// in the order of Features(): a map's order changes from run to run, and
// floating-point sums with it (a one-shot answer and serve's differed in
// the 16th digit).
func (w Weights) Score(values map[string]float64) float64 {
	score := 0.0
	for _, name := range features {
		score += w[name] * values[name]
	}
	return score
}

// HasVersion says the name ends in a version: llvm-nm-14, python3.11.
func HasVersion(name string) bool { return versionSuffix.MatchString(name) }

// AmongCandidates turns each candidate's value (higher is better) into
// two features: its gap to the best candidate's, and 1/(RRFK + rank).
func AmongCandidates(values []float64) (gaps, rrs []float64) {
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return values[order[a]] > values[order[b]] })
	gaps, rrs = make([]float64, len(values)), make([]float64, len(values))
	for rank, i := range order {
		gaps[i] = values[i] - values[order[0]]
		rrs[i] = 1 / float64(RRFK+rank+1)
	}
	return gaps, rrs
}

// Bool is a yes/no feature's value.
func Bool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ReadWeights reads weights written as a JSON object of feature
// name to number (what scripts/research/learn-ranker.py prints): for measuring
// candidate weights on a train split, never on the figures reported.
func ReadWeights(path string) (Weights, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("learned weights: %w", err)
	}
	var w Weights
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("learned weights %s: %v (want a JSON object such as {\"rr_semantic\": 1, \"page_rel\": 0.2})", path, err)
	}
	known := map[string]bool{}
	for _, f := range Features() {
		known[f] = true
	}
	for name, v := range w {
		if !known[name] {
			return nil, fmt.Errorf("learned weights %s: unknown feature %q (known: %s)", path, name, strings.Join(Features(), ", "))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("learned weights %s: %s is %v", path, name, v)
		}
	}
	return w, nil
}

// versionSuffix is a name ending in a version: llvm-nm-14, python3.11.
var versionSuffix = regexp.MustCompile(`(-[0-9]+(\.[0-9]+)*|[0-9]\.[0-9]+)$`)

// Gap is score - top, floored at GapFloor (also when either is unknown).
func Gap(score, top float64) float64 {
	g := score - top
	if math.IsNaN(g) || g < GapFloor {
		return GapFloor
	}
	return g
}

// Rel is score / top, 0 when unknown.
func Rel(score, top float64) float64 {
	if math.IsNaN(score) || math.IsNaN(top) || top <= 0 {
		return 0
	}
	return score / top
}
