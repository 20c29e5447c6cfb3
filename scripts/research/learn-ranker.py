#!/usr/bin/env python3
"""Fit learned mode's weights on a TRAIN split's features.

Reads the JSON Lines file that `cmdai index eval --features FILE` writes
(per request: every candidate command with its features, the expected one
marked) and fits a linear score by pairwise logistic regression: for each
request, the expected command against each other candidate, with an L2
penalty. The penalty is chosen by 5-fold cross-validation over requests
(folds by a hash of the request, so the same split every run), on hit@1
then MRR@10. Prints the weights as JSON ({"feature": weight}), what
`index eval --learned-weights` reads and search.DefaultLearned holds; the
cross-validated figures go to stderr.

Fit on the TRAIN split only (scripts/research/nl2bash-queries.py --split train),
never on a set whose figures are reported.

  scripts/research/learn-ranker.py train-features.jsonl [more-train-features.jsonl ...] > weights.json

--pseudo P.jsonl adds the features of pseudo-requests made from the
pages' own examples (pseudo-requests.py) to every fit, each weighing
--pseudo-weight of a train request: in the CV, those whose command's
fold (by a hash of the command) is not the held-out one; the figures
are the train requests' alone. What reaches commands no train request
names (docs/benchmarks/retrieval.md, "Pseudo-requests from the pages").
"""
import argparse
import hashlib
import json
import sys

import numpy as np


def load(paths):
    reqs = []
    for path in paths:
        for line in open(path, encoding="utf-8"):
            reqs.append(json.loads(line))
    names = sorted({f for d in reqs for c in d["candidates"] for f in c["features"]})
    out = []
    for d in reqs:
        X = np.array([[c["features"].get(f, 0.0) for f in names] for c in d["candidates"]], dtype=float)
        y = np.array([bool(c.get("expected")) for c in d["candidates"]])
        out.append((d["query"], X.reshape(-1, len(names)), y))
    return names, out


def fold_of(query, k=5):
    return int(hashlib.sha256(("cmdai-ranker-fold:" + query).encode()).hexdigest(), 16) % k


def command_fold(command, k=5):
    """A pseudo-request's fold: by its command, so that a held-out fold's
    commands are in no pseudo-request of the fit."""
    return int(hashlib.sha256(("cmdai-pseudo-fold:" + command).encode()).hexdigest(), 16) % k


def pairs(reqs, mean, std):
    """Differences expected - other, standardised."""
    diffs = []
    for _, X, y in reqs:
        if not y.any():
            continue
        Z = (X - mean) / std
        pos = Z[y][0]
        diffs.append(pos - Z[~y])
    return np.vstack(diffs) if diffs else np.zeros((0, len(mean)))


def fit_listwise(reqs, mean, std, l2, iters=100, weights=None):
    """Softmax cross-entropy over each request's candidates (the
    expected command's probability of being first), L2 penalty, by
    Newton's method: closer to hit@1 than pairs, which weigh a pair at
    rank 40 as much as the pair at rank 1. weights, when given, counts
    each request so many times (its share of the mean loss)."""
    data = []
    for i, (_, X, y) in enumerate(reqs):
        if y.any():
            data.append(((X - mean) / std, int(np.argmax(y)), 1.0 if weights is None else weights[i]))
    d = len(mean)
    n = sum(c for _, _, c in data)

    def loss(w):
        total = 0.5 * l2 * w @ w
        for Z, pos, c in data:
            s = Z @ w
            m = s.max()
            total -= c * (s[pos] - m - np.log(np.exp(s - m).sum())) / n
        return total

    w = np.zeros(d)
    cur = loss(w)
    for _ in range(iters):
        grad = l2 * w
        H = l2 * np.eye(d)
        for Z, pos, c in data:
            s = Z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            mu = p @ Z
            grad -= c * (Z[pos] - mu) / n
            H += c * ((Z * p[:, None]).T @ Z - np.outer(mu, mu)) / n
        step = np.linalg.solve(H, grad)
        t = 1.0
        while t > 1e-6:  # backtracking: a full Newton step can overshoot
            nxt = loss(w - t * step)
            if nxt <= cur:
                break
            t /= 2
        w, cur = w - t * step, nxt
        if np.abs(t * step).max() < 1e-7:
            break
    return w


def fit(D, l2, iters=300):
    """Logistic loss on every pair difference (label 1), L2 penalty,
    by Newton's method (the problem is small and convex)."""
    w = np.zeros(D.shape[1])
    n = len(D)
    for _ in range(iters):
        z = D @ w
        p = 1 / (1 + np.exp(-z))
        grad = -D.T @ (1 - p) / n + l2 * w
        H = (D * (p * (1 - p))[:, None]).T @ D / n + l2 * np.eye(len(w))
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def train(reqs, mean, std, l2, loss, weights=None):
    if loss == "pairwise":
        if weights is not None:
            sys.exit("learn-ranker: --pseudo needs the listwise loss")
        return fit(pairs(reqs, mean, std), l2)
    return fit_listwise(reqs, mean, std, l2, weights=weights)


def metrics(reqs, w, mean, std, total=None):
    h1 = h5 = mrr = 0
    n = total if total is not None else len(reqs)
    for _, X, y in reqs:
        if not y.any():
            continue
        s = ((X - mean) / std) @ w
        rank = 1 + int((s > s[y][0]).sum())
        h1 += rank == 1
        h5 += rank <= 5
        mrr += 1 / rank if rank <= 10 else 0
    return h1 / n, h5 / n, mrr / n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("features", nargs="+", help="--features files of train sets (fitted together)")
    ap.add_argument("--l2", type=float, nargs="*", default=[1e-4, 1e-3, 1e-2, 1e-1, 1])
    ap.add_argument("--drop", default="", help="comma-separated features to leave out")
    ap.add_argument("--loss", choices=["listwise", "pairwise"], default="listwise")
    ap.add_argument("--pseudo", nargs="*", default=[], help="--features files of pseudo-requests (pseudo-requests.py), in every fit")
    ap.add_argument("--pseudo-weight", type=float, default=0.1, help="a pseudo-request's weight in a fit (a train request's is 1)")
    args = ap.parse_args()
    names, reqs = load(args.features + args.pseudo)
    n_train = len(reqs) - sum(1 for p in args.pseudo for _ in open(p, encoding="utf-8"))
    drop = {f for f in args.drop.split(",") if f}
    keep = [i for i, f in enumerate(names) if f not in drop]
    names = [names[i] for i in keep]
    reqs = [(q, X[:, keep], y) for q, X, y in reqs]
    pseudo_fold = [command_fold(json.loads(line)["command"]) for p in args.pseudo for line in open(p, encoding="utf-8")]
    pseudo, reqs = reqs[n_train:], reqs[:n_train]
    if pseudo:
        print(f"{len(pseudo)} pseudo-requests in every fit, weight {args.pseudo_weight:g}", file=sys.stderr)
    allX = np.vstack([X for _, X, _ in reqs + pseudo])
    mean, std = allX.mean(0), allX.std(0)
    std[std == 0] = 1

    def fit_set(tr, k):
        extra = [p for p, f in zip(pseudo, pseudo_fold) if f != k]
        return tr + extra, ([1.0] * len(tr) + [args.pseudo_weight] * len(extra)) if pseudo else None

    best = None
    for l2 in args.l2:
        agg = np.zeros(3)
        for k in range(5):
            tr = [r for r in reqs if fold_of(r[0]) != k]
            te = [r for r in reqs if fold_of(r[0]) == k]
            if not te or not tr:
                continue
            fitted, cw = fit_set(tr, k)
            w = train(fitted, mean, std, l2, args.loss, weights=cw)
            agg += np.array(metrics(te, w, mean, std)) * len(te)
        cv = agg / len(reqs)
        print(f"l2 {l2:g}: cross-validated hit@1 {100*cv[0]:.1f} hit@5 {100*cv[1]:.1f} MRR@10 {cv[2]:.3f}", file=sys.stderr)
        if best is None or (cv[0], cv[2]) > (best[1][0], best[1][2]):
            best = (l2, cv)
    l2 = best[0]
    every, cw = fit_set(reqs, -1)
    w = train(every, mean, std, l2, args.loss, weights=cw)
    fitted = metrics(reqs, w, mean, std)
    print(f"chosen l2 {l2:g}; on all of train (fitted): hit@1 {100*fitted[0]:.1f} hit@5 {100*fitted[1]:.1f} MRR@10 {fitted[2]:.3f}", file=sys.stderr)
    # back to the features' own scale: the mean shifts every candidate of
    # a request alike, so it does not change the ranking.
    weights = {f: round(float(wi / si), 6) for f, wi, si in zip(names, w, std)}
    json.dump(weights, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
