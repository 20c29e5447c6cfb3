#!/usr/bin/env python3
"""Would a non-linear first stage beat learned mode's linear score? (issue #32)

Cross-validates, on the TRAIN requests' `cmdai index eval --features`
file, five rankers over the same candidates and features, on exactly
learn-ranker.py's 5 folds (fold_of, a hash of the request):

  linear       learn-ranker.py's softmax-loss linear model, refit per fold
               (its own code, its chosen L2 penalty 0.01): the baseline
  products     the same linear model plus the 28 pairwise products of 8
               features fixed beforehand (PRODUCT_FEATURES); L2 in 1e-3..0.1
  mlp          score = linear + one ReLU hidden layer (8 or 32 units, its own
               L2 0.03 or 0.3), the same softmax loss over each request's
               candidates (torch, L-BFGS)
  gbdt         LightGBM lambdarank or rank_xendcg trees over the raw
               features (7 or 31 leaves, 100, 200 or 400 trees)
  linear+gbdt  the linear model plus small trees fitted to correct it
               (LightGBM started from the linear scores, init_score;
               7 leaves, 25 to 200 trees)

The non-baseline settings are chosen by nested cross-validation: inside
each outer training part, inner folds (3, by another hash of the request;
--inner-splits 1 holds out only the first, a third of the training part)
pick the setting by MRR@10, which is then refit on the whole outer
training part and scored on the held-out fold. So every figure is scored
on requests that neither the fit nor the choice of setting saw. Prints
hit@1, hit@5, MRR@10 per ranker and a paired two-sided sign test of each
against linear on each request's reciprocal rank at 10 (what `index eval
--compare` uses); --ranks keeps every request's rank per ranker.

An experiment, not part of the build. Needs numpy, torch and lightgbm
(==4.7.0); one thread each. Train only (issue #32's figures, about 20
minutes a ranker on one free core):

  OMP_NUM_THREADS=1 nice -n 10 python scripts/research/learn-ranker-nonlinear.py \
      train-features.jsonl --models linear,mlp --inner-splits 1 [--ranks ranks.json]
"""
import argparse
import importlib.util
import itertools
import json
import math
import os
import sys
import time

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "learn_ranker", os.path.join(os.path.dirname(os.path.abspath(__file__)), "learn-ranker.py"))
lr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lr)

LINEAR_L2 = 0.01  # learn-ranker.py's choice on these folds
PRODUCT_FEATURES = ["rr_semantic", "rr_page", "rr_keyword", "sem_gap", "desc_gap", "page_rel", "refs", "subcommand"]
INNER_FOLDS = 3
INNER_SPLITS = 3  # how many of the inner folds to hold out in turn (--inner-splits)


def inner_fold(query):
    return lr.fold_of("inner:" + query, INNER_FOLDS)


def rank_of(scores, y):
    """Rank of the first expected command (learn-ranker.py's metrics), None when absent."""
    if not y.any():
        return None
    return 1 + int((scores > scores[y][0]).sum())


def rr10(rank):
    return 0.0 if rank is None or rank > 10 else 1.0 / rank


def summary(ranks):
    n = len(ranks)
    h1 = sum(r == 1 for r in ranks if r) / n
    h5 = sum(r <= 5 for r in ranks if r) / n
    return h1, h5, sum(rr10(r) for r in ranks) / n


def sign_test(wins, losses):
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)) for i in range(k + 1))
    return min(1.0, 2 * tail)


# ---- linear, and linear with products -------------------------------------

def standardise(reqs):
    allX = np.vstack([X for _, X, _ in reqs])
    mean, std = allX.mean(0), allX.std(0)
    std[std == 0] = 1
    return mean, std


def with_products(reqs, names):
    idx = [names.index(f) for f in PRODUCT_FEATURES]
    out = []
    for q, X, y in reqs:
        P = [X[:, i] * X[:, j] for i, j in itertools.combinations(idx, 2)]
        out.append((q, np.hstack([X, np.column_stack(P)]), y))
    return out


def linear_ranker(l2, stats=None):
    """stats: learn-ranker.py standardises by all requests' (label-free)
    mean and spread; the baseline does the same to reproduce its figure."""
    def fit(train):
        mean, std = stats or standardise(train)
        w = lr.fit_listwise(train, mean, std, l2)
        return lambda X: ((X - mean) / std) @ w
    return fit


# ---- MLP -------------------------------------------------------------------

def pad(reqs, mean, std):
    import torch
    m = max(len(X) for _, X, _ in reqs)
    d = reqs[0][1].shape[1]
    Z = np.zeros((len(reqs), m, d), dtype=np.float32)
    mask = np.zeros((len(reqs), m), dtype=bool)
    pos = []
    for i, (_, X, y) in enumerate(reqs):
        Z[i, :len(X)] = (X - mean) / std
        mask[i, :len(X)] = True
        pos.append(int(np.argmax(y)) if y.any() else -1)
    keep = np.array(pos) >= 0
    return torch.from_numpy(Z[keep]), torch.from_numpy(mask[keep]), torch.tensor(np.array(pos)[keep])


def mlp_ranker(hidden, l2, seed=1, iters=300):
    """score = w.z + v.relu(W z + b): the linear part keeps the baseline's
    penalty (LINEAR_L2), the hidden layer gets its own (l2), so that a large
    one shrinks the model to the linear baseline and the hidden layer only
    learns what the linear part misses."""
    def fit(train):
        import torch
        torch.manual_seed(seed)
        mean, std = standardise(train)
        Z, mask, pos = pad(train, mean, std)
        d = Z.shape[2]
        lin = torch.nn.Linear(d, 1, bias=False)
        torch.nn.init.zeros_(lin.weight)
        hid = torch.nn.Sequential(torch.nn.Linear(d, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1, bias=False))
        params = list(lin.parameters()) + list(hid.parameters())
        opt = torch.optim.LBFGS(params, lr=1, max_iter=iters, history_size=20, line_search_fn="strong_wolfe",
                                tolerance_grad=1e-6, tolerance_change=1e-9)
        n = len(pos)

        def closure():
            opt.zero_grad()
            s = (lin(Z) + hid(Z)).squeeze(-1).masked_fill(~mask, -1e9)
            loss = -torch.log_softmax(s, 1)[torch.arange(n), pos].mean()
            loss = loss + 0.5 * LINEAR_L2 * (lin.weight ** 2).sum() + 0.5 * l2 * sum((p * p).sum() for p in hid.parameters())
            loss.backward()
            return loss

        opt.step(closure)

        def score(X):
            with torch.no_grad():
                z = torch.from_numpy(((X - mean) / std).astype(np.float32))
                return (lin(z) + hid(z)).squeeze(-1).double().numpy()
        return score
    return fit


# ---- gradient-boosted trees -------------------------------------------------

def gbdt_fit(train, objective, leaves, trees, seed=1, base=None):
    """base: a scorer whose scores the trees start from (init_score), so
    that they learn a correction to it; predict then gives the correction."""
    import lightgbm as lgb
    X = np.vstack([X for _, X, _ in train])
    y = np.concatenate([y.astype(int) for _, _, y in train])
    params = dict(objective=objective, num_leaves=leaves, learning_rate=0.05, n_estimators=trees,
                  min_child_samples=50, subsample=0.8, subsample_freq=1, colsample_bytree=0.8,
                  num_threads=1, seed=seed, deterministic=True, verbose=-1)
    model = lgb.LGBMRanker(**params)
    init = np.concatenate([base(X) for _, X, _ in train]) if base else None
    model.fit(X, y, group=[len(X) for _, X, _ in train], init_score=init)
    return model


def gbdt_grid(objectives=("lambdarank", "rank_xendcg"), leaves=(7, 31), trees=(100, 200, 400)):
    """One fit per (objective, leaves) at the most trees; fewer trees are
    the same model cut short (num_iteration), so the grid costs 4 fits."""
    return [(o, l, trees) for o in objectives for l in leaves]


# ---- nested cross-validation ------------------------------------------------

def evaluate(scorer, reqs):
    return [rank_of(scorer(X), y) for _, X, y in reqs]


def nested_choice(train, settings, fit_scorers, label):
    """The setting with the best mean inner-CV MRR@10 on train."""
    agg = {}
    for k in range(INNER_SPLITS):
        itr = [r for r in train if inner_fold(r[0]) != k]
        ite = [r for r in train if inner_fold(r[0]) == k]
        for s in settings:
            for key, scorer in fit_scorers(itr, s):
                agg.setdefault(key, []).extend(evaluate(scorer, ite))
    best = max(agg, key=lambda key: (summary(agg[key])[2], summary(agg[key])[0]))
    print(f"  {label}: inner CV chose {best} (MRR@10 {summary(agg[best])[2]:.3f})", file=sys.stderr)
    return best


def run(model, reqs, names):
    t0 = time.time()
    if model == "products":
        reqs = with_products(reqs, names)
    ranks = [None] * len(reqs)
    for k in range(5):
        tr = [r for r in reqs if lr.fold_of(r[0]) != k]
        te_idx = [i for i, r in enumerate(reqs) if lr.fold_of(r[0]) == k]
        te = [reqs[i] for i in te_idx]
        if model == "linear":
            scorer = linear_ranker(LINEAR_L2, standardise(reqs))(tr)
        elif model == "products":
            grid = [1e-3, 1e-2, 1e-1]
            l2 = nested_choice(tr, grid, lambda t, s: [(s, linear_ranker(s)(t))], f"products fold {k}")
            scorer = linear_ranker(l2)(tr)
        elif model == "mlp":
            grid = [(h, l2) for h in (8, 32) for l2 in (0.03, 0.3)]
            best = nested_choice(tr, grid, lambda t, s: [(s, mlp_ranker(*s)(t))], f"mlp fold {k}")
            scorer = mlp_ranker(*best)(tr)
        elif model == "gbdt":
            def fits(t, s):
                m = gbdt_fit(t, s[0], s[1], max(s[2]))
                return [((s[0], s[1], n), (lambda X, m=m, n=n: m.predict(X, num_iteration=n))) for n in s[2]]
            best = nested_choice(tr, gbdt_grid(), fits, f"gbdt fold {k}")
            m = gbdt_fit(tr, best[0], best[1], best[2])
            scorer = m.predict
        elif model == "linear+gbdt":
            def fits(t, s):
                lin = linear_ranker(LINEAR_L2)(t)
                m = gbdt_fit(t, s[0], s[1], max(s[2]), base=lin)
                return [((s[0], s[1], n), (lambda X, m=m, n=n, lin=lin: lin(X) + m.predict(X, num_iteration=n))) for n in s[2]]
            best = nested_choice(tr, gbdt_grid(leaves=(7,), trees=(25, 50, 100, 200)), fits, f"linear+gbdt fold {k}")
            lin = linear_ranker(LINEAR_L2)(tr)
            m = gbdt_fit(tr, best[0], best[1], best[2], base=lin)
            scorer = lambda X: lin(X) + m.predict(X)
        for i, r in zip(te_idx, evaluate(scorer, te)):
            ranks[i] = r
    print(f"  {model}: {time.time() - t0:.0f} s", file=sys.stderr)
    return ranks


def main():
    global INNER_SPLITS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("features", nargs="+", help="--features files of train sets")
    ap.add_argument("--models", default="linear,products,mlp,gbdt,linear+gbdt")
    ap.add_argument("--ranks", help="write each request's cross-validated rank per model here (JSON)")
    ap.add_argument("--inner-splits", type=int, default=INNER_SPLITS, choices=range(1, INNER_FOLDS + 1),
                    help="inner folds held out in turn to choose settings (1: one inner split, faster)")
    args = ap.parse_args()
    INNER_SPLITS = args.inner_splits
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    names, reqs = lr.load(args.features)
    models = args.models.split(",")
    ranks = {m: run(m, reqs, names) for m in models}
    base = ranks.get("linear")
    print(f"{len(reqs)} train requests, 5-fold cross-validated (learn-ranker.py's folds)")
    print("| ranker | hit@1 | hit@5 | MRR@10 | vs linear: wins / losses / ties on RR@10, sign test p |")
    print("|---|---|---|---|---|")
    for m in models:
        h1, h5, mrr = summary(ranks[m])
        cmp = ""
        if base is not None and m != "linear":
            a = [rr10(r) for r in base]
            b = [rr10(r) for r in ranks[m]]
            w = sum(x > y for x, y in zip(b, a))
            l = sum(x < y for x, y in zip(b, a))
            cmp = f"{w} / {l} / {len(a) - w - l}, p = {sign_test(w, l):.3g}"
        print(f"| {m} | {100*h1:.1f} % | {100*h5:.1f} % | {mrr:.3f} | {cmp} |")
    if args.ranks:
        with open(args.ranks, "w") as f:
            json.dump({"queries": [q for q, _, _ in reqs], "ranks": ranks}, f)


if __name__ == "__main__":
    main()
