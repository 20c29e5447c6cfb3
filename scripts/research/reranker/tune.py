#!/usr/bin/env python3
"""Fine-tune all-MiniLM-L6-v2 as a bi-encoder on the pages' pseudo-requests.

Each example is (pseudo-request, its command's card, a hard negative card);
the loss is the softmax over the batch's cards (every other example's card
is a negative too; cards equal to the example's own are masked), scale 20:
sentence-transformers' MultipleNegativesRankingLoss, written out so the
run is deterministic. Only pages' pseudo-requests train it, never a
request set, so its scores on the train requests are out of sample and
the learned ranker's weights for them can be fitted there.

  tune.py --data data.json --model SRC --epochs 1 --out DIR
"""
import argparse
import json
import os
import random
import time

import numpy as np
import torch
import torch.nn.functional as F
from transformers import AutoModel, AutoTokenizer

from model import mean_pooled

SEED = 1234


def embed(model, tok, texts, max_len):
    return mean_pooled(model, tok, texts, max_len)


def evaluate(model, tok, data, key, max_len, k=10):
    model.eval()
    cards, hit, n = data["cards"], 0, 0
    with torch.no_grad():
        for r in data["dev"]:
            top = r["learned"][:k]
            n += 1
            if r["command"] not in top:
                continue
            q = embed(model, tok, [r["query"]], max_len)
            c = embed(model, tok, [cards[x] if key == "card" else data["descs"][x] for x in top], max_len)
            hit += top[int((c @ q.T).squeeze(-1).argmax())] == r["command"]
    model.train()
    return f"dev top{k} by the model alone: hit@1 {hit}/{n} = {100*hit/n:.1f}%"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--text", choices=["card", "desc"], default="desc", help="what a command is: 'name: description' or the description alone (descvec's text)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    data = json.load(open(a.data))
    data["descs"] = {c: (t.split(": ", 1)[1] if ": " in t else c) for c, t in data["cards"].items()}
    text = data["cards"] if a.text == "card" else data["descs"]
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModel.from_pretrained(a.model)
    model.embeddings.word_embeddings.weight.requires_grad_(False)
    rng = random.Random(SEED)
    examples = []
    for r in data["pseudo"]:
        negs = [c for c in r["top"][:5] if text[c] != text[r["command"]]]
        if negs:
            examples.append((r["query"], r["command"], negs))
    steps = a.epochs * ((len(examples) + a.batch - 1) // a.batch)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=a.lr, weight_decay=0.01)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps))
    print(f"tune: {len(examples)} examples, {steps} steps; " + evaluate(model, tok, data, a.text, a.max_len), flush=True)
    t0, step = time.time(), 0
    model.train()
    for ep in range(a.epochs):
        rng.shuffle(examples)
        for i in range(0, len(examples), a.batch):
            b = examples[i:i + a.batch]
            q = embed(model, tok, [x[0] for x in b], a.max_len)
            pos_names = [x[1] for x in b]
            neg_names = [rng.choice(x[2]) for x in b]
            c = embed(model, tok, [text[n] for n in pos_names + neg_names], a.max_len)
            s = 20.0 * q @ c.T
            names = pos_names + neg_names
            mask = torch.tensor([[j != i_ and text[names[j]] == text[pos_names[i_]] for j in range(len(names))]
                                 for i_ in range(len(b))])
            s = s.masked_fill(mask, -1e4)
            loss = F.cross_entropy(s, torch.arange(len(b)))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 25 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {step*len(b)/(time.time()-t0):.1f} ex/s", flush=True)
        print(f"epoch {ep+1}: " + evaluate(model, tok, data, a.text, a.max_len) + f" ({time.time()-t0:.0f} s)", flush=True)
    os.makedirs(a.out, exist_ok=True)
    model.save_pretrained(a.out)
    tok.save_pretrained(a.out)
    json.dump({"seconds": round(time.time() - t0), "steps": steps, "examples": len(examples), "text": a.text,
               "lr": a.lr, "batch": a.batch, "epochs": a.epochs}, open(os.path.join(a.out, "tune.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
