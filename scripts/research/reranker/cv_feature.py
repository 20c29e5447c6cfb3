#!/usr/bin/env python3
"""Does the tuned model's cosine help learned mode? 5-fold CV on TRAIN.

Adds two features to each candidate of an `index eval --features` file:
tuned_gap (the tuned model's cosine between the request and the
command's one-line description, minus the best candidate's) and rr_tuned
(1/(10 + its rank by that cosine)), as search.Candidates computes
desc_gap / rr_desc with the embedder. Then fits learned mode's weights
(learn-ranker.py's listwise fit, same folds, same L2 grid) with and
without them, and prints the cross-validated hit@1 / hit@5 / MRR@10 of
both and the paired sign test on reciprocal rank. With --write, writes
the augmented features file.

  cv_feature.py --features train-features.jsonl --descs data.json --model DIR [--write OUT]
"""
import argparse
import importlib.util
import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("learn_ranker", os.path.join(HERE, "..", "learn-ranker.py"))
lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)

RRFK = 10


def load(model_dir):
    import torch
    from transformers import AutoModel, AutoTokenizer
    torch.set_num_threads(2)
    return AutoModel.from_pretrained(model_dir).eval(), AutoTokenizer.from_pretrained(model_dir)


def add_features(reqs, desc_vecs, request_vecs):
    """Each candidate's tuned_gap and rr_tuned from the request's vector and
    the descriptions' (by command), as search.Candidates computes them."""
    for r, q in zip(reqs, request_vecs):
        sims = [float(desc_vecs[c["command"]] @ q) if c["command"] in desc_vecs else -1.0 for c in r["candidates"]]
        order = sorted(range(len(sims)), key=lambda i: -sims[i])
        for rank, i in enumerate(order):
            f = r["candidates"][i]["features"]
            f["tuned_gap"] = sims[i] - sims[order[0]]
            f["rr_tuned"] = 1 / (RRFK + rank + 1)


def augment(reqs, descs, model_dir):
    from model import embed_all
    model, tok = load(model_dir)
    names = sorted(descs)
    D = dict(zip(names, embed_all(model, tok, [descs[n] or n for n in names], 256)))
    add_features(reqs, D, embed_all(model, tok, [r["query"] for r in reqs], 256))
    return reqs


def matrix(reqs, names):
    out = []
    for d in reqs:
        X = np.array([[c["features"].get(f, 0.0) for f in names] for c in d["candidates"]], dtype=float)
        y = np.array([bool(c.get("expected")) for c in d["candidates"]])
        out.append((d["query"], X.reshape(-1, len(names)), y))
    return out


def cv_rr(reqs, names, l2s=(0.01,)):
    """Reciprocal rank (10 cut) of each request, scored by weights fitted
    on the other folds, with the L2 the inner CV prefers (learn-ranker.py's
    choice: best CV hit@1 then MRR over the same grid)."""
    data = matrix(reqs, names)
    folds = [lr.fold_of(q) for q, _, _ in data]
    best = None
    for l2 in l2s:
        rr = [0.0] * len(data)
        for k in range(5):
            tr = [d for d, f in zip(data, folds) if f != k]
            X = np.vstack([x for _, x, _ in tr if len(x)])
            mean, std = X.mean(0), X.std(0) + 1e-9
            w = lr.fit_listwise(tr, mean, std, l2)
            for i, (d, f) in enumerate(zip(data, folds)):
                _, Xi, y = d
                if f != k or not y.any():
                    continue
                s = ((Xi - mean) / std) @ w
                rank = 1 + int((s > s[y][0]).sum())
                rr[i] = 1 / rank if rank <= 10 else 0.0
        key = (sum(x == 1.0 for x in rr), sum(rr))
        if best is None or key > best[0]:
            best = (key, l2, rr)
    return best[1], best[2]


def sign_p(w, l):
    n = w + l
    return 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, i) for i in range(min(w, l) + 1)) / 2 ** n)


def report(name, rr, l2):
    n = len(rr)
    h1 = sum(x == 1.0 for x in rr)
    h5 = sum(x >= 0.2 for x in rr)
    print(f"{name}: L2 {l2}: hit@1 {100*h1/n:.1f}% hit@5 {100*h5/n:.1f}% MRR@10 {sum(rr)/n:.3f} (n={n})")


def compare(reqs, base_names, label):
    """CV of learned mode with and without the tuned features, paired."""
    l2a, base = cv_rr(reqs, base_names)
    l2b, new = cv_rr(reqs, base_names + ["rr_tuned", "tuned_gap"])
    report("learned (today's features)", base, l2a)
    report(label, new, l2b)
    w = sum(x > y for x, y in zip(new, base))
    l = sum(x < y for x, y in zip(new, base))
    h1w = sum(x == 1.0 and y != 1.0 for x, y in zip(new, base))
    h1l = sum(y == 1.0 and x != 1.0 for x, y in zip(new, base))
    print(f"paired on RR@10: {w} better / {l} worse, sign test p = {sign_p(w, l):.3g}; hit@1 gained {h1w}, lost {h1l}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", required=True)
    ap.add_argument("--descs", required=True, help="make_data.py's output: its cards give each command's description")
    ap.add_argument("--model", required=True)
    ap.add_argument("--write")
    a = ap.parse_args()
    reqs = [json.loads(l) for l in open(a.features)]
    cards = json.load(open(a.descs))["cards"]
    descs = {c: (t.split(": ", 1)[1] if ": " in t else "") for c, t in cards.items()}
    base_names = sorted({f for d in reqs for c in d["candidates"] for f in c["features"]})
    reqs = augment(reqs, descs, a.model)
    compare(reqs, base_names, "learned + tuned_gap, rr_tuned")
    if a.write:
        with open(a.write, "w") as f:
            for r in reqs:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
