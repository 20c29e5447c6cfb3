#!/usr/bin/env bash
# compare-query-json.sh OLD_BIN NEW_BIN CHROMA_URL REQUESTS.jsonl [N] [-- NEW_ARGS...]:
# do two cmdai binaries give the same `index query --json` answers? Runs
# the first N (200) requests of REQUESTS (scripts/research/nl2bash-queries.py
# writes them) through both, one-shot, against one running Chroma server
# (HNSW answers vary slightly between server starts, never within one),
# each binary in its own CMDAI_HOME (their keyword index files may
# differ) with the model of $CMDAI_HOME. Masks query_ms, prints the
# number of requests that differ and exits 1 if any do. QUERY_ARGS (default
# "--mode hybrid -k 5") go to both, NEW_ARGS to the new one only (e.g.
# --full to show every match whole, as before --matches).
set -euo pipefail
old=${1:?usage: compare-query-json.sh OLD_BIN NEW_BIN CHROMA_URL REQUESTS [N] [-- NEW_ARGS]}
new=${2:?} url=${3:?} requests=${4:?} n=${5:-200}
shift $(($# < 5 ? $# : 5)); [[ ${1:-} == -- ]] && shift
read -r -a args <<<"${QUERY_ARGS:---mode hybrid -k 5}"
work=$(mktemp -d /tmp/cmdai-qjson.XXXXXX)
for side in old new; do
	mkdir -p "$work/$side/home" && cp -r "${CMDAI_HOME:?set CMDAI_HOME to a home with the model}/embeddings" "$work/$side/home/"
	# the key the index's records are sealed with (issue 30): without it
	# every record fails its check and both sides answer nothing
	if [ -f "$CMDAI_HOME/record.key" ]; then cp -p "$CMDAI_HOME/record.key" "$work/$side/home/"; fi
done
# (schema_version and aliases as a list came in schema 1: a binary from
# before is compared as if it had them)
mask() { python3 -c 'import json,sys
d=json.load(sys.stdin); d.pop("query_ms",None); d.pop("schema_version",None)
for c in d.get("commands") or []:
    if isinstance(c.get("aliases"),str): c["aliases"]=c["aliases"].split(",")
print(json.dumps(d,sort_keys=True))'; }
differ=0
head -n "$n" "$requests" | python3 -c 'import json,sys
for l in sys.stdin: print(json.loads(l)["query"])' >"$work/requests.txt"
while IFS= read -r q; do
	a=$(CMDAI_HOME=$work/old/home "$old" index query --json "${args[@]}" --chroma-url "$url" -- "$q" 2>/dev/null | mask)
	b=$(CMDAI_HOME=$work/new/home "$new" index query --json "${args[@]}" "$@" --chroma-url "$url" -- "$q" 2>/dev/null | mask)
	if [[ $a != "$b" ]]; then
		differ=$((differ + 1)); echo "DIFFER: $q"
	fi
done <"$work/requests.txt"
echo "compare-query-json: $(wc -l <"$work/requests.txt") requests, $differ differ (${args[*]})"
[[ $differ == 0 ]]
