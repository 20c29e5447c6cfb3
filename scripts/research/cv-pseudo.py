#!/usr/bin/env python3
"""Do pseudo-requests from the pages' own examples teach learned mode's
weights something that reaches commands no train request names?
5-fold CV on TRAIN, paired by request.

TRAIN is an `index eval --mode learned -k 20 --features` file of the
train requests; PSEUDO the same of pseudo-requests made from every page's
examples (pseudo-requests.py), run against a copy of the index without
the examples they were made from (else each finds its own record).
Arms, each fitted per fold by learn-ranker.py's listwise fit at the L2
its CV prefers:
  T   the weights fitted on the other folds' train requests (today's way);
  T+P the same plus every pseudo-request whose command is in no held-out
      request's fold (folds of pseudo-requests are by command hash, so a
      held-out pseudo-request's command is never in its fit).
Scored on the held-out train requests (all, covered, uncovered: whether
a request in another fold names its command) and on the held-out
pseudo-requests (commands the fit never saw in a pseudo-request).

  cv-pseudo.py TRAIN.jsonl PSEUDO.jsonl [--weight W ...]

Its last line names the weight to fit with (learn-ranker.py
--pseudo-weight): the largest of --weight that loses nothing that
counts on the train requests, that is no significant loss of reciprocal
rank on them all (sign p >= 0.05) and, on the uncovered ones, a hit@1
at least T's and no more losses than wins; 0 when none does.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reranker"))
import cv_feature as cvf  # noqa: E402  (learn-ranker.py's fit, folds and sign test)

L2S = (1e-4, 1e-3, 0.01, 0.1)


def load(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def rr_of(X, y, w, mean, std):
    if not y.any() or not len(X):
        return 0.0
    s = ((X - mean) / std) @ w
    rank = 1 + int((s > s[y][0]).sum())
    return 1 / rank if rank <= 10 else 0.0


def run(train, pseudo, names, weight, l2):
    T = cvf.matrix(train, names)
    P = cvf.matrix(pseudo, names)
    tf = [cvf.lr.fold_of(q) for q, _, _ in T]
    pf = [cvf.lr.command_fold(d["command"]) for d in pseudo]
    rt, rp = [0.0] * len(T), [0.0] * len(P)
    for k in range(5):
        fit = [d for d, f in zip(T, tf) if f != k]
        cw = [1.0] * len(fit)
        if weight > 0:
            extra = [d for d, f in zip(P, pf) if f != k]
            fit += extra
            cw += [weight] * len(extra)
        X = np.vstack([x for _, x, _ in fit if len(x)])
        mean, std = X.mean(0), X.std(0) + 1e-9
        w = cvf.lr.fit_listwise(fit, mean, std, l2, weights=cw)
        for i, ((_, Xi, y), f) in enumerate(zip(T, tf)):
            if f == k:
                rt[i] = rr_of(Xi, y, w, mean, std)
        for i, ((_, Xi, y), f) in enumerate(zip(P, pf)):
            if f == k:
                rp[i] = rr_of(Xi, y, w, mean, std)
    return rt, rp


def line(name, v):
    n = len(v)
    return f"  {name}: hit@1 {100*sum(x == 1.0 for x in v)/n:.1f} hit@5 {100*sum(x >= 0.2 for x in v)/n:.1f} MRR@10 {sum(v)/n:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("train")
    ap.add_argument("pseudo")
    ap.add_argument("--weight", type=float, nargs="*", default=[1.0], help="each pseudo-request's weight in a fit (a train request's is 1); one T+P arm each")
    ap.add_argument("--l2", type=float, nargs="*", default=list(L2S))
    a = ap.parse_args()
    train = [d for d in load(a.train) if any(c.get("expected") for c in d["candidates"])]
    pseudo = [d for d in load(a.pseudo) if any(c.get("expected") for c in d["candidates"])]
    names = sorted({f for d in train for c in d["candidates"] for f in c["features"]})
    print(f"{len(train)} train requests with their command among the candidates, {len(pseudo)} pseudo-requests; {len(names)} features")
    tf = [cvf.lr.fold_of(d["query"]) for d in train]
    by_cmd = {}
    for d, f in zip(train, tf):
        by_cmd.setdefault(d["command"], set()).add(f)
    covered = [bool(by_cmd[d["command"]] - {f}) for d, f in zip(train, tf)]
    res = {}
    arms = [("T", 0.0)] + [(f"T+P{wt:g}", wt) for wt in a.weight]
    for arm, wt in arms:
        best = None
        for l2 in a.l2:
            rt, rp = run(train, pseudo, names, wt, l2)
            key = (sum(x == 1.0 for x in rt), sum(rt))
            if best is None or key > best[0]:
                best = (key, l2, rt, rp)
        res[arm] = best
        print(f"{arm}: L2 {best[1]} (chosen on the train requests' CV)")
    stats = {}
    slices = {
        "train, all": [True] * len(train),
        "train, covered": covered,
        "train, uncovered": [not c for c in covered],
    }
    for sname, sel in slices.items():
        print(f"\n{sname} ({sum(sel)})")
        vs = {}
        for arm, (_, _, rt, _) in res.items():
            vs[arm] = [x for x, s in zip(rt, sel) if s]
            print(line(arm, vs[arm]))
        stats[sname] = paired(vs)
    print(f"\npseudo-requests, held out by command ({len(pseudo)})")
    vs = {arm: r[3] for arm, r in res.items()}
    for arm, v in vs.items():
        print(line(arm, v))
    paired(vs)
    chosen = 0.0
    for arm, wt in arms[1:]:
        _, _, p, _ = stats["train, all"][arm]
        uw, ul, _, uh1 = stats["train, uncovered"][arm]
        if p >= 0.05 and uh1 >= stats["train, uncovered"]["T"] and uw >= ul:
            chosen = max(chosen, wt)
    print(f"\nchosen pseudo-request weight: {chosen:g}")


def paired(vs):
    """Each T+P arm against T, by reciprocal rank: {arm: (wins, losses,
    sign p, hit@1 count)}, T's own hit@1 count under "T"."""
    out = {"T": sum(x == 1.0 for x in vs["T"])}
    for arm, v in vs.items():
        if arm == "T":
            continue
        w = sum(x > y for x, y in zip(v, vs["T"]))
        l = sum(x < y for x, y in zip(v, vs["T"]))
        print(f"  {arm} vs T: RR W / L {w} / {l}, sign p = {cvf.sign_p(w, l):.2g}")
        out[arm] = (w, l, cvf.sign_p(w, l), sum(x == 1.0 for x in v))
    return out


if __name__ == "__main__":
    main()
