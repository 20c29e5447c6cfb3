#!/usr/bin/env python3
"""Measure a second bi-encoder as learned-mode features, on TRAIN only.

An experiment, not part of the build: it answers "would a second, larger
embedding model's cosines help learned mode?" without touching the index.
It embeds each command's one-line description and its summary chunk with
the given BERT-style ONNX model (CLS pooling, unit vectors; requests get
the BGE query instruction), adds per candidate the gap to the best and the
rank among the candidates (as learned mode's desc_gap / rr_desc), and
compares 5-fold cross-validated ranks with and without them, per train
set, with a two-sided sign test on reciprocal rank.

  chunks: `index scan`-free dump of the keyword index, one JSON object a
          line with command, description, text and meta.kind (see
          BENCHMARKS.md, "A second embedding model").
  features: `index eval --features` files of TRAIN sets.

  scripts/research/try-second-embedder.py --onnx M.onnx --tokenizer T.json \\
      --chunks chunks.jsonl nl-train-features.jsonl own-train-features.jsonl
"""
import argparse
import importlib.util
import json
import math
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

QUERY_PREFIX = "Represent this sentence for searching relevant passages: "


def embedder(onnx_path, tokenizer_path):
    tok = Tokenizer.from_file(tokenizer_path)
    tok.enable_truncation(512)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(onnx_path, so)

    def embed(texts, bs=32):
        out = []
        for i in range(0, len(texts), bs):
            enc = tok.encode_batch(texts[i:i + bs])
            width = max(len(e.ids) for e in enc)
            ids = np.zeros((len(enc), width), np.int64)
            mask = np.zeros_like(ids)
            for j, e in enumerate(enc):
                ids[j, :len(e.ids)] = e.ids
                mask[j, :len(e.ids)] = 1
            h = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            v = h[:, 0, :]
            out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        return np.concatenate(out)

    return embed


def among(values):
    order = sorted(range(len(values)), key=lambda i: -values[i])
    gaps, rrs = [0.0] * len(values), [0.0] * len(values)
    for rank, i in enumerate(order):
        gaps[i] = values[i] - values[order[0]]
        rrs[i] = 1 / (10 + rank + 1)
    return gaps, rrs


def cv_ranks(lr, reqs):
    ranks = [None] * len(reqs)
    for k in range(5):
        train = [r for r in reqs if lr.fold_of(r[0]) != k]
        X = np.vstack([r[1] for r in train])
        mean, std = X.mean(0), X.std(0)
        std[std == 0] = 1
        w = lr.train(train, mean, std, 1e-4, "listwise")
        for i, (q, X, y) in enumerate(reqs):
            if lr.fold_of(q) == k and y.any():
                s = ((X - mean) / std) @ w
                ranks[i] = 1 + int((s > s[y][0]).sum())
    return ranks


def sign_test(wins, losses):
    n, k = wins + losses, min(wins, losses)
    return min(1.0, 2 * sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n) if n else 1.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--chunks", required=True)
    ap.add_argument("features", nargs="+")
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("lr", os.path.join(os.path.dirname(__file__), "learn-ranker.py"))
    lr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lr)

    desc, summary = {}, {}
    for line in open(args.chunks, encoding="utf-8"):
        d = json.loads(line)
        c = d["command"]
        if not desc.get(c):
            desc[c] = d["description"] or c
        if d["meta"].get("kind") == "summary":
            summary.setdefault(c, d["text"])
    commands = sorted(desc)
    where = {c: i for i, c in enumerate(commands)}
    embed = embedder(args.onnx, args.tokenizer)
    vectors = {"desc2": embed([desc[c] for c in commands]), "summ2": embed([summary.get(c, desc[c]) for c in commands])}

    rows, sources = [], []
    for path in args.features:
        for line in open(path, encoding="utf-8"):
            rows.append(json.loads(line))
            sources.append(os.path.basename(path))
    queries = embed([QUERY_PREFIX + r["query"] for r in rows])

    variants = {"as shipped": [], "+ description": ["desc2"], "+ description + summary": ["desc2", "summ2"]}
    ranks = {}
    for name, extra in variants.items():
        reqs = []
        for r, q in zip(rows, queries):
            cands = [dict(c, features=dict(c["features"])) for c in r["candidates"]]
            for v in extra:
                sims = [float(vectors[v][where[c["command"]]] @ q) if c["command"] in where else 0.0 for c in cands]
                for c, g, rr in zip(cands, *among(sims)):
                    c["features"][v + "_gap"], c["features"]["rr_" + v] = g, rr
            reqs.append(dict(r, candidates=cands))
        names = sorted({f for d in reqs for c in d["candidates"] for f in c["features"]})
        data = []
        for d in reqs:
            X = np.array([[c["features"].get(f, 0.0) for f in names] for c in d["candidates"]], dtype=float).reshape(-1, len(names))
            data.append((d["query"], X, np.array([bool(c.get("expected")) for c in d["candidates"]])))
        ranks[name] = cv_ranks(lr, data)

    base = ranks["as shipped"]
    rr = lambda r: 1 / r if r and r <= 10 else 0
    for name, got in ranks.items():
        for src in sorted(set(sources)):
            idx = [i for i, s in enumerate(sources) if s == src]
            hit = lambda rs, k: 100 * sum(1 for i in idx if rs[i] and rs[i] <= k) / len(idx)
            wins = sum(1 for i in idx if rr(got[i]) > rr(base[i]))
            losses = sum(1 for i in idx if rr(got[i]) < rr(base[i]))
            print(f"{name:26s} {src:28s} hit@1 {hit(got, 1):.1f} hit@5 {hit(got, 5):.1f} "
                  f"vs shipped {wins}/{losses} p={sign_test(wins, losses):.2g}")


if __name__ == "__main__":
    sys.exit(main())
