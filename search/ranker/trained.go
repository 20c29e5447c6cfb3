package ranker

import (
	_ "embed"
	"strings"
)

// The reranker's and the query adapter's features, again, for the
// commands they were trained toward alone (0 for the others): with them
// the weights trust those models where they learned something and the
// rest of the features elsewhere. Both models were fitted on the train
// requests, and for a command none of those names they pull toward the
// commands people asked about: 5-fold CV on train, requests whose command
// no other fold names, hit@1 61.0 -> 65.6 % (42 better / 14 worse, p =
// 0.0002), the others 51.1 -> 50.2 % (48 / 60, p = 0.29)
// (docs/benchmarks/retrieval.md, "The reranker trusted where it was
// trained").
const (
	TrainedRerankGap  = "trained_rerank_gap" // rerank_gap for a command TrainedOn, else 0
	TrainedRerankRank = "trained_rr_rerank"  // rr_rerank likewise
	TrainedAdaptGap   = "trained_adesc_gap"  // adesc_gap likewise
	TrainedAdaptRank  = "trained_rr_adesc"   // rr_adesc likewise
)

// trainedPairs are each gated feature with the feature it repeats.
var trainedPairs = [][2]string{
	{TrainedRerankGap, RerankGap}, {TrainedRerankRank, RerankRank},
	{TrainedAdaptGap, AdaptGap}, {TrainedAdaptRank, AdaptRank},
}

// trainedCommands are the commands the train requests name
// (search/evaluate/requests/requests-train.jsonl and NL2Bash's train
// split), one a line: what the shipped reranker and adapter were trained
// toward. Written by scripts/research/train-ranker.sh.
//
//go:embed trained-commands.txt
var trainedCommands string

var trained = func() map[string]bool {
	out := map[string]bool{}
	for _, c := range strings.Fields(trainedCommands) {
		out[c] = true
	}
	return out
}()

// TrainedOn says a train request names command: the reranker and the
// query adapter were trained toward it.
func TrainedOn(command string) bool { return trained[command] }

// SetTrained gives a candidate's features (f, those of command) the
// gated copies of its reranker and adapter features: the same values for
// a command TrainedOn, else 0. Features it lacks count as 0.
func SetTrained(f map[string]float64, command string) {
	on := TrainedOn(command)
	for _, p := range trainedPairs {
		if on {
			f[p[0]] = f[p[1]]
		} else {
			f[p[0]] = 0
		}
	}
}
