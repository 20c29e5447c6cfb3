#!/usr/bin/env python3
"""Pair two runs of `index eval --misses` on the same requests.

Two binaries (or two indexes) cannot be paired by `index eval --compare`,
which pairs modes of one run. This reads the requests file and each
run's misses file (a request absent from it ranked first), and prints
MRR and hit@1 of both, the requests each run ranks better, and the
two-sided exact sign test on reciprocal rank, as search/evalstat does.

  paired-misses.py requests.jsonl base.misses new.misses
"""
import json
import math
import sys


def rr(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        out[(o["query"], o["command"])] = 0.0 if o["rank"] is None else 1.0 / o["rank"]
    return out


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    qs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    a, b = rr(sys.argv[2]), rr(sys.argv[3])
    wins = losses = 0
    sa = sb = 0.0
    h1a = h1b = 0
    for q in qs:
        k = (q.get("query") or q.get("request"), q["command"])
        x, y = a.get(k, 1.0), b.get(k, 1.0)
        sa, sb = sa + x, sb + y
        h1a, h1b = h1a + (x == 1.0), h1b + (y == 1.0)
        wins, losses = wins + (y > x), losses + (y < x)
    n = wins + losses
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2 ** n) if n else 1.0
    N = len(qs)
    print(f"requests {N}: MRR {sa/N:.4f} -> {sb/N:.4f}, hit@1 {h1a/N:.4f} -> {h1b/N:.4f}; "
          f"new better on {wins}, worse on {losses}, same on {N-n}; sign test p = {p:.3g}")


if __name__ == "__main__":
    main()
