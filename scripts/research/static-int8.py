#!/usr/bin/env python3
"""Issue #33, item 2: would static int8 quantisation of all-MiniLM-L6-v2
make `index init` fast enough? Measures, on the index's own chunk texts
(heads as init embeds them: 128 word pieces, summaries 256), one ONNX
Runtime thread each, the shipped dynamic int8 model against static int8
ones (weight MatMuls, per-channel QInt8 weights, QUInt8 activations,
calibrated on 200 other chunks padded to 128), and each model's cosine to
the fp32 model's vector (the shipped int8 is checked at >= 0.98 min).
--kinds prints the share of word pieces each chunk kind embeds instead.

  .tools/venv/bin/python scripts/research/static-int8.py --sqlite COPY/chroma.sqlite3 \\
      --model .tools/model/all-MiniLM-L6-v2 [--n 400] [--kinds]

COPY: a copy of an index's Chroma directory (read only).
"""
import argparse
import collections
import os
import random
import sqlite3
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from tokenizers import Tokenizer

CONFIGS = [  # name, calibration, MatMuls left in float (name parts)
    ("static minmax", CalibrationMethod.MinMax, ()),
    ("static percentile 99.99", CalibrationMethod.Percentile, ()),
    ("static percentile, output projections float", CalibrationMethod.Percentile, (".output.dense",)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sqlite", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--kinds", action="store_true")
    a = ap.parse_args()
    db = sqlite3.connect(f"file:{a.sqlite}?mode=ro", uri=True)
    rows = db.execute("select a.string_value, b.string_value from embedding_metadata a join embedding_metadata b"
                      " on a.id = b.id where a.key = 'chroma:document' and b.key = 'kind' order by a.id").fetchall()
    tok = Tokenizer.from_file(os.path.join(a.model, "tokenizer.json"))

    def enc(text, kind):
        ids = tok.encode(text).ids
        ids = ids[:256] if kind == "summary" else ids[:128]
        if ids[-1] != 102:  # [SEP] ends a cut head, as the embedder's truncation does
            ids = ids[:-1] + [102]
        return np.array([ids], np.int64)

    if a.kinds:
        pieces, count = collections.Counter(), collections.Counter()
        for text, kind in rows:
            pieces[kind] += enc(text, kind).shape[1]
            count[kind] += 1
        total = sum(pieces.values())
        for kind, n in pieces.most_common():
            print(f"{kind}: {count[kind]} chunks, {n} word pieces embedded, {100 * n / total:.1f} %")
        return
    random.Random(7).shuffle(rows)
    calib = [enc(t, k) for t, k in rows[:200]]
    test = [enc(t, k) for t, k in rows[1000:1000 + a.n]]
    fp32 = os.path.join(a.model, "model.onnx")
    graph = onnx.load(fp32).graph
    inputs = [i.name for i in graph.input]
    inits = {i.name for i in graph.initializer}
    weight_matmuls = [n.name for n in graph.node if n.op_type == "MatMul" and any(x in inits for x in n.input)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(calib)

        def get_next(self):
            ids = next(self.it, None)
            if ids is None:
                return None
            n = min(ids.shape[1], 128)
            pad, mask = np.zeros((1, 128), np.int64), np.zeros((1, 128), np.int64)
            pad[0, :n], mask[0, :n] = ids[0, :n], 1
            f = {"input_ids": pad, "attention_mask": mask, "token_type_ids": np.zeros_like(pad)}
            return {k: v for k, v in f.items() if k in inputs}

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sessions = {"fp32": fp32, "dynamic int8 (shipped)": os.path.join(a.model, "model_int8.onnx")}
    work = tempfile.mkdtemp()
    for i, (name, method, keep) in enumerate(CONFIGS):
        out = os.path.join(work, f"static-{i}.onnx")
        nodes = [n for n in weight_matmuls if not any(p in n for p in keep)]
        quantize_static(fp32, out, Reader(), quant_format=QuantFormat.QOperator, per_channel=True,
                        calibrate_method=method, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_quantize=nodes,
                        extra_options={"CalibPercentile": 99.99} if method == CalibrationMethod.Percentile else {})
        sessions[name] = out
    sessions = {n: ort.InferenceSession(p, opts, providers=["CPUExecutionProvider"]) for n, p in sessions.items()}

    def embed(s, ids):
        f = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        h = s.run(None, {k: v for k, v in f.items() if k in inputs})[0][0].mean(0)
        return h / np.linalg.norm(h)

    ref = [embed(sessions["fp32"], x) for x in test]
    for _ in range(2):  # two rounds, alternated
        for name, s in sessions.items():
            if name == "fp32":
                continue
            t = time.perf_counter()
            vecs = [embed(s, x) for x in test]
            rate = len(test) / (time.perf_counter() - t)
            cos = [float(v @ r) for v, r in zip(vecs, ref)]
            print(f"{name}: {rate:.1f} chunks/s, cosine to fp32 min {min(cos):.4f} mean {np.mean(cos):.4f}", flush=True)


if __name__ == "__main__":
    main()
