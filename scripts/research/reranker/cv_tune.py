#!/usr/bin/env python3
"""Fine-tune the bi-encoder on train requests, 5-fold, and measure the
learned ranker with its cosine as a feature, every request scored by a
model that never saw it (out of fold): a fair CV on TRAIN.

  cv_tune.py --features train-features.jsonl --data data.json --model SRC [--epochs 2] [--pseudo]
"""
import argparse
import json
import random

import torch
import torch.nn.functional as F
from transformers import AutoModel, AutoTokenizer

import cv_feature as cvf
from model import embed_all, mean_pooled

SEED = 1234


def embed(model, tok, texts, max_len=64):
    return mean_pooled(model, tok, texts, max_len)


def tune(src, examples, text, epochs, lr, batch=32, top_layers=0):
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    tok = AutoTokenizer.from_pretrained(src)
    model = AutoModel.from_pretrained(src)
    model.embeddings.word_embeddings.weight.requires_grad_(False)
    if top_layers:
        # Train only the last top_layers layers: a small file to ship.
        n = model.config.num_hidden_layers
        for name, p in model.named_parameters():
            if not any(name.startswith(f"encoder.layer.{i}.") for i in range(n - top_layers, n)):
                p.requires_grad_(False)
    steps = epochs * ((len(examples) + batch - 1) // batch)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps))
    model.train()
    ex = list(examples)
    for _ in range(epochs):
        rng.shuffle(ex)
        for i in range(0, len(ex), batch):
            b = ex[i:i + batch]
            q = embed(model, tok, [x[0] for x in b])
            pos = [x[1] for x in b]
            neg = [rng.choice(x[2]) for x in b]
            names = pos + neg
            c = embed(model, tok, [text[n] for n in names])
            s = 20.0 * q @ c.T
            mask = torch.tensor([[j != k and text[names[j]] == text[pos[k]] for j in range(len(names))] for k in range(len(b))])
            loss = F.cross_entropy(s.masked_fill(mask, -1e4), torch.arange(len(b)))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
    model.eval()
    return model, tok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--negs", type=int, default=5, help="hard negatives drawn from learned mode's first N")
    ap.add_argument("--pseudo", action="store_true", help="also train on the pages' pseudo-requests")
    ap.add_argument("--top-layers", type=int, default=0, help="train only the last N layers (0: all)")
    ap.add_argument("--write")
    a = ap.parse_args()
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    data = json.load(open(a.data))
    text = {c: (t.split(": ", 1)[1] if ": " in t else c) for c, t in data["cards"].items()}
    real = {r["query"]: r for r in data["train"] + data["dev"]}
    reqs = [json.loads(l) for l in open(a.features)]
    base_names = sorted({f for d in reqs for c in d["candidates"] for f in c["features"]})
    pseudo = []
    if a.pseudo:
        pseudo = [(r["query"], r["command"], [c for c in r["top"][:5] if text[c] != text[r["command"]]]) for r in data["pseudo"]]
        pseudo = [p for p in pseudo if p[2]]
    for k in range(5):
        ex = []
        for q, r in real.items():
            if cvf.lr.fold_of(q) == k:
                continue
            negs = [c for c in r["top"][:a.negs] if text[c] != text[r["command"]]]
            if negs:
                ex.append((q, r["command"], negs))
        model, tok = tune(a.model, ex + pseudo, text, a.epochs, a.lr, top_layers=a.top_layers)
        held = [r for r in reqs if cvf.lr.fold_of(r["query"]) == k]
        names = sorted(text)
        D = dict(zip(names, embed_all(model, tok, [text[n] for n in names], 256)))
        cvf.add_features(held, D, embed_all(model, tok, [r["query"] for r in held], 256))
        print(f"fold {k}: trained on {len(ex)} requests + {len(pseudo)} pseudo, scored {len(held)}", flush=True)
    cvf.compare(reqs, base_names, "learned + tuned (out of fold)")
    if a.write:
        with open(a.write, "w") as f:
            for r in reqs:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
