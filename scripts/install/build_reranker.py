#!/usr/bin/env python3
"""The steps of build-reranker.sh that need Python (the venv fetch-model.sh
makes: numpy, safetensors, onnxruntime, tokenizers; no torch).

  build_reranker.py merge --base SRC --tuned FILE --out DIR
      DIR/model.safetensors: all-MiniLM-L6-v2's weights (SRC) with the
      tensors in FILE (the tuned ones, fp16) put in their place, and
      SRC's config.json: what export_onnx.py reads.
  build_reranker.py verify --model-dir DIR --reference FILE [--min-fp32 0.9999] [--min-int8 0.98] [--int8-only]
      the vectors of DIR's model.onnx and model_int8.onnx (mean pooled,
      normalised) for the reference texts against PyTorch's (FILE, from
      scripts/research/reranker/train_reranker.py): exits 1 below the
      minimum cosine.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
from safetensors.numpy import load_file, save_file


def merge(a):
    base = load_file(os.path.join(a.base, "model.safetensors"))
    tuned = load_file(a.tuned)
    if "embeddings.word_embeddings.weight" in tuned:
        sys.exit("build_reranker: the tuned weights carry the word embeddings; they must come from the base")
    for k, v in tuned.items():
        if k not in base or base[k].shape != v.shape:
            sys.exit(f"build_reranker: tuned tensor {k} {v.shape} is not in all-MiniLM-L6-v2 with that shape")
        base[k] = v.astype(np.float32)
    os.makedirs(a.out, exist_ok=True)
    save_file(base, os.path.join(a.out, "model.safetensors"))
    shutil.copyfile(os.path.join(a.base, "config.json"), os.path.join(a.out, "config.json"))
    print(f"build_reranker: {len(tuned)} tuned tensors merged into all-MiniLM-L6-v2's {len(base)}")


def vectors(session, tok, texts):
    out = []
    for t in texts:
        e = tok.encode(t)
        feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
        h = session.run(["last_hidden_state"], feed)[0][0]
        v = h.mean(0)
        out.append(v / max(np.linalg.norm(v), 1e-12))
    return np.array(out)


def verify(a):
    import onnxruntime as ort
    from tokenizers import Tokenizer
    ref = json.load(open(a.reference))
    want = np.array(ref["vectors"], dtype=np.float64)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    tok = Tokenizer.from_file(os.path.join(a.model_dir, "tokenizer.json"))
    tok.no_padding()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    ok = True
    files = (("model.onnx", a.min_fp32), ("model_int8.onnx", a.min_int8))
    for name, floor in files[1:] if a.int8_only else files:
        s = ort.InferenceSession(os.path.join(a.model_dir, name), opts, providers=["CPUExecutionProvider"])
        got = vectors(s, tok, ref["texts"])
        cos = (got * want).sum(1)
        print(f"build_reranker: {name} against PyTorch on {len(cos)} texts: min cosine {cos.min():.6f}, mean {cos.mean():.6f} (floor {floor})")
        ok &= bool(cos.min() >= floor)
    if not ok:
        sys.exit("build_reranker: the ONNX reranker does not match the PyTorch model it was built from")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge")
    m.add_argument("--base", required=True)
    m.add_argument("--tuned", required=True)
    m.add_argument("--out", required=True)
    v = sub.add_parser("verify")
    v.add_argument("--model-dir", required=True)
    v.add_argument("--reference", required=True)
    v.add_argument("--min-fp32", type=float, default=0.9999)
    v.add_argument("--min-int8", type=float, default=0.98)
    v.add_argument("--int8-only", action="store_true", help="the installed reranker: its fp32 file is left out")
    a = ap.parse_args()
    {"merge": merge, "verify": verify}[a.cmd](a)


if __name__ == "__main__":
    main()
