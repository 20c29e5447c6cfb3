#!/usr/bin/env python3
"""Compares learned-mode arms by 5-fold CV on TRAIN, paired by request,
split by whether the request's command is named by a train request in
another fold ("covered") or by none ("uncovered": what a model fitted on
the train requests cannot have learned about).

Each arm is an `index eval --mode learned -k 20 --features` file of the
same train requests (or one a script extended with more features). For
each arm, learned mode's weights are fitted on the other folds with all
the arm's features (learn-ranker.py's listwise fit and folds, the L2 its
grid prefers), so each request is scored by weights that never saw it.
Prints hit@1 / hit@5 / MRR@10 per arm and slice, then each listed pair's
wins and losses on reciprocal rank (10 cut) with the sign test.

  cv-arms.py NAME=FEATURES.jsonl ... [--pair A:B ...]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reranker"))
import cv_feature as cvf  # noqa: E402  (learn-ranker.py's fit, folds and sign test)

L2S = (1e-4, 1e-3, 0.01, 0.1)


def load(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        out[r["query"]] = r
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("arms", nargs="+", help="NAME=FEATURES.jsonl")
    ap.add_argument("--pair", action="append", default=[], help="A:B, the arms to pair (default: each against the first)")
    a = ap.parse_args()
    data = {}
    for spec in a.arms:
        name, path = spec.split("=", 1)
        data[name] = load(path)
    first = next(iter(data))
    qs = sorted(set.intersection(*[set(d) for d in data.values()]))
    print(f"{len(qs)} requests in every arm")
    cmd = {q: data[first][q]["command"] for q in qs}
    fold = {q: cvf.lr.fold_of(q) for q in qs}
    by_cmd = {}
    for q in qs:
        by_cmd.setdefault(cmd[q], set()).add(fold[q])
    covered = {q: bool(by_cmd[cmd[q]] - {fold[q]}) for q in qs}
    rr = {}
    for name, d in data.items():
        reqs = [d[q] for q in qs]
        names = sorted({f for r in reqs for c in r["candidates"] for f in c["features"]})
        l2, r = cvf.cv_rr(reqs, names, L2S)
        rr[name] = dict(zip(qs, r))
        print(f"{name}: {len(names)} features, L2 {l2}")
    pairs = [p.split(":") for p in a.pair] or [(n, first) for n in data if n != first]
    slices = {"all": qs, "covered": [q for q in qs if covered[q]], "uncovered": [q for q in qs if not covered[q]]}
    for sname, sel in slices.items():
        print(f"\n{sname} ({len(sel)}): hit@1 / hit@5 / MRR@10")
        for name, r in rr.items():
            v = [r[q] for q in sel]
            n = len(v)
            print(f"  {name}: {100*sum(x == 1.0 for x in v)/n:.1f} / {100*sum(x >= 0.2 for x in v)/n:.1f} / {sum(v)/n:.3f}")
        for x, y in pairs:
            w = sum(rr[x][q] > rr[y][q] for q in sel)
            l = sum(rr[x][q] < rr[y][q] for q in sel)
            print(f"  {x} vs {y}: W / L {w} / {l}, sign p = {cvf.sign_p(w, l):.2g}")


if __name__ == "__main__":
    main()
