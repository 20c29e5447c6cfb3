#!/usr/bin/env bash
# Measures fused mode's ranking levers one at a time (issue #18) on a
# TRAIN split: each line is `index eval --mode fused --fused-weights W`.
# Tune on train only; run the final weights on test once, apart.
# Usage: CMDAI_HOME=<home with the index> scripts/bench/bench-fused-levers.sh BIN TRAIN.jsonl
set -euo pipefail
bin=${1:?usage: $0 BIN TRAIN.jsonl}
queries=${2:?usage: $0 BIN TRAIN.jsonl}
# hybrid as fused mode writes it: semantic + chunk BM25 + names, rrf_k 60
hybrid='"semantic":1,"keyword":0.3,"named":0.3,"summary":0,"page":0,"rrf_k":60,"sem_summary_bonus":0.08,"sem_support":0.05'
run() { # label weights
	printf '%-34s ' "$1"
	"$bin" index eval --queries "$queries" --mode fused --fused-weights "$2" | sed 's/^fused *//'
}
run "semantic alone (rrf_k 10)" '{"named":0,"summary":0,"page":0}'
run "hybrid (as today)" "{$hybrid}"
for ch in summary option example section page; do
	run "hybrid + $ch 0.3" "{$hybrid,\"$ch\":0.3}"
done
run "final (DefaultFused)" '{}'
run "final - summary channel" '{"summary":0}'
run "final - page channel" '{"page":0}'
run "final - named channel" '{"named":0}'
run "final, rrf_k 60" '{"rrf_k":60}'
run "final, sem_summary_bonus 0.08" '{"sem_summary_bonus":0.08}'
run "final, best chunk alone" '{"sem_support":0}'
run "final, support 0.3" '{"sem_support":0.3}'
run "final, sum of best 4 chunks" '{"sem_support":1}'
run "final, no semantic summary bonus" '{"sem_summary_bonus":0}'
run "final, semantic summary bonus 0.3" '{"sem_summary_bonus":0.3}'
run "final + chunk keyword 0.3" '{"keyword":0.3}'
run "final + option 0.1" '{"option":0.1}'
run "final + example 0.1" '{"example":0.1}'
run "final + section 0.1" '{"section":0.1}'
