#!/usr/bin/env python3
"""Measure two more cosines as features of the option ranker (issue #43)
by its own cross-validation, without changing cmdai:

  --adapter FILE --vectors FILE   the request's vector mapped by the query
        adapter (the reranker directory's adapter.bin, trained to move
        requests toward the commands they ask for), its cosine with each
        record's vector from the index; the request vectors are what
        `cmdai index eval --queries Q --vectors FILE` writes
  --model DIR   the cosine of request and record both embedded by another
        model (the reranker, all-MiniLM-L6-v2 tuned on the train
        requests: scripts/research/reranker), run here with onnxruntime
        (mean pooling, unit length, as cmdai embeds)

each as two features, the cosine and its gap to the page's best (as cos
and cos_gap), and prints learn-options.py's 5-fold CV by command with and
without them. Reads an export of the index (`cmdai index export`, its
records.jsonl) and the features train-options.sh wrote:

  scripts/research/cv-option-cosines.py records.jsonl WORK/features-*.jsonl --adapter A --vectors V
  scripts/research/cv-option-cosines.py records.jsonl WORK/features-*.jsonl --model .tools/model/cmdai-reranker

Needs numpy (and for --model onnxruntime and tokenizers): the Chroma
venv has them. Results: docs/benchmarks/retrieval.md, "Which flag".
"""
import argparse
import base64
import importlib.util
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("learn_options", os.path.join(HERE, "learn-options.py"))
lo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lo)
BASE = list(lo.FEATURES)
GAP_FLOOR = -0.3  # optrank.GapFloor


def read_adapter(path):
    data = open(path, "rb").read()
    magic = b"cmdai-adapter1\n"
    if not data.startswith(magic):
        raise SystemExit(f"{path}: not an adapter file")
    dims, has_bias = struct.unpack("<II", data[len(magic):len(magic) + 8])
    vals = np.frombuffer(data[len(magic) + 8:len(data) - 32], dtype="<f4").astype(float)
    w = vals[:dims * dims].reshape(dims, dims)
    b = vals[dims * dims:] if has_bias else np.zeros(dims)

    def adapt(v):
        o = w @ v + b
        return o / np.linalg.norm(o)
    return adapt


def model_embedder(d):
    import onnxruntime as ort
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    tok.enable_truncation(256)
    tok.enable_padding()
    onnx = next(os.path.join(d, f) for f in ("model_int8.onnx", "model.onnx") if os.path.exists(os.path.join(d, f)))
    sess = ort.InferenceSession(onnx)
    inputs = {i.name for i in sess.get_inputs()}

    def embed(texts, bs=32):
        out = []
        for i in range(0, len(texts), bs):
            enc = tok.encode_batch(texts[i:i + bs])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            h = sess.run(None, feed)[0]
            m = mask[:, :, None].astype(float)
            v = (h * m).sum(1) / m.sum(1)
            out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        return np.vstack(out) if out else np.zeros((0, 384))
    return embed


def rows_of(raw, cosine):
    out = []
    for d in raw:
        X = np.array(d["features"], dtype=float).reshape(-1, len(BASE))
        y = np.array(d["labels"], dtype=bool)
        if not (y.any() and len(y) > 1):
            continue
        if cosine is not None:
            c = np.array([cosine(d["query"], rid) for rid in d["ids"]])
            known = ~np.isnan(c)
            best = c[known].max() if known.any() else 0.0
            gap = np.where(known, np.maximum(GAP_FLOOR, c - best), GAP_FLOOR)
            X = np.hstack([X, np.where(known, c, 0.0)[:, None], gap[:, None]])
        out.append((d["command"], d["source"], X, y))
    return out


def cv(rows, names, label):
    lo.FEATURES = names
    lo.cv_report(rows, label)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records")
    ap.add_argument("features", nargs="+")
    ap.add_argument("--adapter")
    ap.add_argument("--vectors")
    ap.add_argument("--model")
    a = ap.parse_args()
    if bool(a.adapter) == bool(a.model) or bool(a.adapter) != bool(a.vectors):
        raise SystemExit("give --adapter FILE --vectors FILE, or --model DIR")
    raw, need = [], set()
    for path in a.features:
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            if d.get("names") != BASE:
                raise SystemExit(f"{path}: features {d.get('names')}, learn-options.py fits {BASE}")
            raw.append(d)
            need.update(d["ids"])
    docs, vecs = {}, {}
    for line in open(a.records, encoding="utf-8"):
        d = json.loads(line)
        if d["id"] in need:
            docs[d["id"]] = d["document"]
            vecs[d["id"]] = np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4").astype(float)
    if a.adapter:
        adapt = read_adapter(a.adapter)
        queries = {}
        for line in open(a.vectors, encoding="utf-8"):
            d = json.loads(line)
            queries[d["query"]] = adapt(np.array(d["vector"], dtype=float))
        label = "with the adapted request's cosine"
    else:
        embed = model_embedder(a.model)
        ids = sorted(docs)
        vecs = dict(zip(ids, embed([docs[i] for i in ids])))
        qs = sorted({d["query"] for d in raw})
        queries = dict(zip(qs, embed(qs)))
        label = f"with {os.path.basename(os.path.normpath(a.model))}'s cosine"

    def cosine(query, rid):
        q, v = queries.get(query), vecs.get(rid)
        return float(q @ v) if q is not None and v is not None else float("nan")
    print(f"{len(vecs)} records, {len(queries)} requests", file=sys.stderr)
    cv(rows_of(raw, None), BASE, "today's features")
    cv(rows_of(raw, cosine), BASE + ["cos2", "cos2_gap"], label)


if __name__ == "__main__":
    main()
