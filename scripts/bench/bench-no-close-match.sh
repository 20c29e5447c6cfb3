#!/usr/bin/env bash
# "No close match" (issue 46): each request of the train split, our test
# split and the requests for tools not installed here
# (search/evaluate/requests/requests-{train,own,absent}.jsonl) asked with
# `cmdai search --json`; prints the train split's closeness percentiles
# (search.NoCloseMatchBelow is its 3rd) and, per set, how many answers
# say no installed command matches closely; with the NL2Bash corpus
# (NL2BASH, default ../shared/bench/nl2bash), its test split too, each
# request whose expected command has a man page here (the index holds it).
#
#   CMDAI_HOME=<home with a whole machine's index> scripts/bench/bench-no-close-match.sh
#
# Needs `make build chroma`; starts a serve for the home (answers in tens
# of ms) and stops it after.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
export CMDAI_AUTO_SERVE=false
BIN="$REPO/bin/cmdai"
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
"$BIN" serve --stop >/dev/null 2>&1 || true
"$BIN" serve >/dev/null 2>&1 &
for _ in $(seq 120); do "$BIN" search "list files" -k 1 >/dev/null 2>&1 && break; sleep 0.5; done
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
work="$(mktemp -d)"
trap 'rm -rf "$work"; "$BIN" serve --stop >/dev/null 2>&1 || true' EXIT
cp "$REPO"/search/evaluate/requests/requests-{train,own,absent}.jsonl "$work/"
if [ -f "$NL2BASH/all.nl" ]; then
	python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split test |
		python3 -c 'import json, subprocess, sys
for l in sys.stdin:
    if subprocess.run(["man", "-w", json.loads(l)["command"]], capture_output=True).returncode == 0:
        sys.stdout.write(l)' >"$work/requests-nl2bash-test.jsonl"
fi
BIN="$BIN" REQUESTS="$work" python3 - <<'PY'
import json, os, subprocess
req = os.environ["REQUESTS"]
closeness = {}
for split in ("train", "own", "nl2bash-test", "absent"):
    path = os.path.join(req, "requests-%s.jsonl" % split)
    if not os.path.exists(path):
        continue
    rows = []
    for line in open(path):
        q = json.loads(line)["query"]
        out = subprocess.run([os.environ["BIN"], "search", q, "--json", "-k", "5"], capture_output=True, text=True).stdout
        rows.append(json.loads(out))
    closeness[split] = rows
tr = sorted(r["closeness"] for r in closeness["train"])
print("train closeness percentiles: " + ", ".join("%d%%: %.4f" % (p, tr[len(tr) * p // 100]) for p in (1, 2, 3, 5, 10, 50)))
for split, rows in closeness.items():
    n = sum(1 for r in rows if r["no_close_match"])
    print("%-12s %3d requests: no close match %3d (%.1f %%)" % (split, len(rows), n, 100.0 * n / len(rows)))
PY
