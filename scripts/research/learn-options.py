#!/usr/bin/env python3
"""Fit the option ranker's weights (search/optrank) on TRAIN features.

Reads the JSON Lines files `cmdai index eval --option-features FILE
[--page-examples]` writes: per request, its expected command's option and
example records, each record's features (optrank.Features order) and
whether it shows an option the request needs. Fits a linear score by a
softmax over each request's records whose loss is -log of the positives'
total probability (a request may need several options; showing any one
of them counts), with an L2 penalty, by full-batch Adam from zero (no
random numbers: the same files give the same weights).

Cross-validation is by COMMAND (5 folds by a hash of the command), so each
fold is scored on commands its fit never saw: the figure that says
whether the ranker reaches commands no train request names. The penalty
is chosen on it. How many records an answer shows is --max (at most)
and --margin (a record within it of the best's score is shown too); an
answer then keeps what fits its bytes (search/optrank.Fit). Both were
chosen on train answers (`index eval -k 5 --option-weights` on the train
files: docs/benchmarks/retrieval.md, "Which flag"); the out-of-fold
share with a needed option shown is printed for each, for reference.

Fit on train files only (NL2Bash's train split with --lines, our
requests-train.jsonl with its options, the pages' own examples), never on
a set whose figures are reported.

  learn-options.py train-nl.jsonl train-own.jsonl pages.jsonl [--max 8 --margin 3.0] > option-weights.json
"""
import argparse
import hashlib
import json
import sys

import numpy as np

FEATURES = ["cos", "cos_gap", "rr_cos", "bm25", "bm25_rel", "name", "ex_use", "syn", "common", "pos", "example", "arg", "ex_cos", "ex_bm25"]


def load(paths):
    rows = []
    for path in paths:
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            if d.get("names") != FEATURES:
                raise SystemExit(f"{path}: features {d.get('names')}, this script fits {FEATURES}: update FEATURES to optrank.Features()")
            X = np.array(d["features"], dtype=float).reshape(-1, len(FEATURES))
            y = np.array(d["labels"], dtype=bool)
            if y.any() and len(y) > 1:
                rows.append((d["command"], d["source"], X, y))
    return rows


def fold_of(command, k=5):
    return int(hashlib.sha256(("cmdai-options-fold:" + command).encode()).hexdigest(), 16) % k


def fit(rows, l2, std, iters=400, lr=0.05):
    w = np.zeros(len(FEATURES))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    Zs = [(X / std, y) for _, _, X, y in rows]
    for t in range(1, iters + 1):
        g = 2 * l2 * w * len(Zs)
        for Z, y in Zs:
            s = Z @ w
            s = s - s.max()
            e = np.exp(s)
            p = e / e.sum()
            q = np.where(y, e, 0.0)
            q = q / q.sum()
            g += Z.T @ (p - q)
        g /= len(Zs)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w / std  # on the features' own scale


def scores(rows, w):
    return [X @ w for _, _, X, _ in rows]


def shown(s, margin, cap):
    order = np.argsort(-s, kind="stable")
    n = 1
    while n < len(order) and n < cap and s[order[0]] - s[order[n]] <= margin:
        n += 1
    return order[:n]


def figures(rows, ss, margin, cap):
    hit1 = anyshown = count = 0
    for (_, _, _, y), s in zip(rows, ss):
        top = shown(s, margin, cap)
        hit1 += y[top[0]]
        anyshown += y[top].any()
        count += len(top)
    n = max(1, len(rows))
    return hit1 / n, anyshown / n, count / n


def cv_report(rows, label, l2s=(1e-3, 1e-2), margin=3.0, cap=8):
    """Prints, per penalty, the out-of-fold figures of a fit on rows (5-fold
    CV by command) over the request files' rows: the top record shows a
    needed option, and one of the first CAP within MARGIN does. For
    scripts that measure a candidate feature (cv-option-*.py); FEATURES
    names rows' columns."""
    allX = np.vstack([X for _, _, X, _ in rows])
    std = allX.std(axis=0)
    std[std == 0] = 1
    req = [i for i, r in enumerate(rows) if r[1] == "request"]
    for l2 in l2s:
        ss = [None] * len(rows)
        for f in range(5):
            w = fit([r for r in rows if fold_of(r[0]) != f], l2, std)
            for i, r in enumerate(rows):
                if fold_of(r[0]) == f:
                    ss[i] = r[2] @ w
        R, S = [rows[i] for i in req], [ss[i] for i in req]
        top, _, _ = figures(R, S, 0, 1)
        _, first, count = figures(R, S, margin, cap)
        print(f"{label}, l2 {l2:g}: top record {100 * top:.1f} %, a needed one in the first {cap} within {margin} {100 * first:.1f} % ({count:.2f} shown)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--max", type=int, default=8, help="records an answer shows per command, at most")
    ap.add_argument("--margin", type=float, default=3.0, help="a record within MARGIN of the best's score is shown too")
    a = ap.parse_args()
    rows = load(a.files)
    allX = np.vstack([X for _, _, X, _ in rows])
    std = allX.std(axis=0)
    std[std == 0] = 1
    req = [i for i, r in enumerate(rows) if r[1] == "request"]
    print(f"{len(rows)} requests with a needed record ({len(req)} from request files, {len(rows) - len(req)} from pages' examples), "
          f"{len({r[0] for r in rows})} commands", file=sys.stderr)
    best = None
    oof = {}
    for l2 in (1e-4, 1e-3, 1e-2):
        ss = [None] * len(rows)
        for f in range(5):
            train = [r for r in rows if fold_of(r[0]) != f]
            w = fit(train, l2, std)
            for i, r in enumerate(rows):
                if fold_of(r[0]) == f:
                    ss[i] = r[2] @ w
        h1, _, _ = figures([rows[i] for i in req], [ss[i] for i in req], 0, 1)
        hp, _, _ = figures(rows, ss, 0, 1)
        print(f"l2 {l2:g}: CV by command, top record shows a needed option: requests {100 * h1:.1f} %, all {100 * hp:.1f} %", file=sys.stderr)
        oof[l2] = ss
        if best is None or h1 > best[0]:
            best = (h1, l2)
    l2 = best[1]
    ss = oof[l2]
    # the cosine alone, for reference
    cos = [r[2][:, 0] for r in rows]
    h1c, _, _ = figures([rows[i] for i in req], [cos[i] for i in req], 0, 1)
    print(f"reference: cosine alone, requests {100 * h1c:.1f} %", file=sys.stderr)
    for cap in sorted({2, 4, a.max}):
        for margin in sorted({1.0, 2.0, 3.0, a.margin}):
            _, anyshown, count = figures([rows[i] for i in req], [ss[i] for i in req], margin, cap)
            print(f"  max {cap} margin {margin:4.2f}: a needed one shown {100 * anyshown:.1f} %, {count:.2f} shown", file=sys.stderr)
    _, anyshown, _ = figures([rows[i] for i in req], [ss[i] for i in req], a.margin, a.max)
    choice = (anyshown, a.margin, a.max)
    w = fit(rows, l2, std)
    out = {"features": {f: round(float(x), 4) for f, x in zip(FEATURES, w)}, "margin": choice[1], "max": choice[2]}
    print(f"chosen: l2 {l2:g}, max {choice[2]}, margin {choice[1]} ({100 * choice[0]:.1f} % out of fold)", file=sys.stderr)
    json.dump(out, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
