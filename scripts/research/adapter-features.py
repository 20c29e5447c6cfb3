#!/usr/bin/env python3
"""Adds the query adapter's description cosine to an `index eval
--features` file as two more learned-mode features, adesc_gap and
rr_adesc (computed as search.Candidates computes desc_gap and rr_desc
from the embedder's cosine), each request's from the fold adapter fitted
without it (train-adapter.sh's WORK/folds/fold-k.adapter, folds by
learn-ranker.py's fold_of). The candidates stay those of the raw vector:
the adapter is one more piece of evidence, not the search vector.

  adapter-features.py FEATURES.jsonl OUT.jsonl --folds WORK/folds \\
      --vectors WORK/vectors.jsonl --desc WORK/home/keywords/descriptions-*.vec

--vectors: `index eval --vectors` of the same requests; --desc: the
embedder's description vectors of the same index, one row per command of
WORK/folds/commands.txt (train-adapter.py fit writes it).
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reranker"))
import cv_feature as cvf  # noqa: E402

MAGIC = b"cmdai-adapter1\n"


def read_adapter(path):
    raw = open(path, "rb").read()
    if not raw.startswith(MAGIC):
        sys.exit(f"{path}: not an adapter file")
    d, has_bias = struct.unpack("<2I", raw[len(MAGIC):len(MAGIC) + 8])
    at = len(MAGIC) + 8
    W = np.frombuffer(raw[at:at + 4 * d * d], "<f4").reshape(d, d)
    b = np.frombuffer(raw[at + 4 * d * d:at + 4 * d * d + 4 * d], "<f4") if has_bias else np.zeros(d, np.float32)
    return W, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("out")
    ap.add_argument("--folds", required=True)
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--desc", required=True)
    a = ap.parse_args()
    raw = open(a.desc, "rb").read()
    count, dims = struct.unpack("<2I", raw[12:20])
    D = np.frombuffer(raw[20:20 + 4 * count * dims], "<f4").reshape(count, dims)
    vec = {}
    for line in open(a.vectors, encoding="utf-8"):
        r = json.loads(line)
        vec[r["query"]] = np.asarray(r["vector"], np.float32)
    reqs = [json.loads(line) for line in open(a.features, encoding="utf-8")]
    units = open(os.path.join(a.folds, "commands.txt"), encoding="utf-8").read().split()
    if len(units) != count:
        sys.exit(f"--desc holds {count} commands, {a.folds}/commands.txt {len(units)}: another index's files")
    Dn = dict(zip(units, D))
    adapters = [read_adapter(os.path.join(a.folds, f"fold-{k}.adapter")) for k in range(5)]
    with open(a.out, "w", encoding="utf-8") as out:
        for r in reqs:
            W, b = adapters[cvf.lr.fold_of(r["query"])]
            u = W @ vec[r["query"]] + b
            u /= np.linalg.norm(u)
            sims = [float(Dn[c["command"]] @ u) if c["command"] in Dn else -1.0 for c in r["candidates"]]
            order = sorted(range(len(sims)), key=lambda i: -sims[i])
            for rank, i in enumerate(order):
                f = r["candidates"][i]["features"]
                f["adesc_gap"] = sims[i] - sims[order[0]]
                f["rr_adesc"] = 1 / (cvf.RRFK + rank + 1)
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
