#!/usr/bin/env python3
"""Train the reranker (model.SegmentCosine) on make_data.py's groups.

Listwise: for each group, a softmax over (positive card, 7 negative
cards); a batch holds 4 groups. Deterministic: fixed seeds, one thread
order (torch.use_deterministic_algorithms), pinned packages
(requirements.txt). The word embedding table is frozen (model.py says why).
Prints the dev slice's figures (rerank learned mode's top K by the model
alone) before training and after each epoch, and writes the model
(Hugging Face layout + head.json) and dev-scores.jsonl (every dev
request's top K with the model's score, for fitting the blend).

  train.py --data data.json --model SRC --layers 3 --epochs 2 --out DIR
"""
import argparse
import json
import os
import random
import time

import numpy as np
import torch

from model import SegmentCosine

SEED = 1234
NEG = 7
GROUPS_PER_BATCH = 4


def groups_for_epoch(data, rng, request_repeats, max_groups):
    cards = data["cards"]
    out = []
    for r in data["train"] * request_repeats + data["pseudo"]:
        top = r["top"]
        if not top:
            continue
        head, rest = top[:3], top[3:]
        negs = head + rng.sample(rest, min(NEG - len(head), len(rest)))
        out.append((r["query"], [cards[r["command"]]] + [cards[c] for c in negs[:NEG]]))
    rng.shuffle(out)
    return out[:max_groups] if max_groups else out


def score_pairs(model, tok, query, cards_, max_len):
    enc = tok([query] * len(cards_), cards_, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
    return model(**enc).squeeze(-1)


def evaluate(model, tok, data, k, max_len, dump=None):
    model.eval()
    cards = data["cards"]
    hits = {1: 0, 5: 0}
    learned_hit1 = rr = 0
    rows = []
    with torch.no_grad():
        for r in data["dev"]:
            top = r["learned"][:k]
            learned_hit1 += bool(top) and top[0] == r["command"]
            if not top:
                continue
            s = score_pairs(model, tok, r["query"], [cards[c] for c in top], max_len).tolist()
            order = [c for _, c in sorted(zip(s, top), key=lambda x: -x[0])]
            if r["command"] in order:
                i = order.index(r["command"])
                rr += 1 / (i + 1)
                for h in hits:
                    hits[h] += i < h
            rows.append({"query": r["query"], "command": r["command"], "top": top, "scores": s})
    model.train()
    n = len(data["dev"])
    if dump:
        with open(dump, "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    return f"dev n={n} top{k}: model hit@1 {100*hits[1]/n:.1f}% hit@5 {100*hits[5]/n:.1f}% MRR {rr/n:.3f}; learned hit@1 {100*learned_hit1/n:.1f}%"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--model", required=True, help="all-MiniLM-L6-v2, Hugging Face layout")
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--request-repeats", type=int, default=3, help="each train request is seen this many times an epoch (new negatives each time)")
    p.add_argument("--max-groups", type=int, default=0, help="cap groups per epoch (a quick run)")
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--dev-k", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    from transformers import AutoTokenizer
    os.makedirs(a.out, exist_ok=True)
    data = json.load(open(a.data))
    tok = AutoTokenizer.from_pretrained(a.model)
    model = SegmentCosine(a.model, a.layers)
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    rng = random.Random(SEED)
    epochs = [groups_for_epoch(data, rng, a.request_repeats, a.max_groups) for _ in range(a.epochs)]
    steps = sum((len(g) + GROUPS_PER_BATCH - 1) // GROUPS_PER_BATCH for g in epochs)
    body = [p_ for n, p_ in model.named_parameters() if p_.requires_grad and n.startswith("bert.")]
    opt = torch.optim.AdamW([{"params": body, "lr": a.lr}, {"params": [model.scale, model.bias], "lr": 1e-2, "weight_decay": 0.0}], weight_decay=0.01)
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps))
    print(f"train: layers={a.layers} groups/epoch={len(epochs[0])} epochs={a.epochs} steps={steps}", flush=True)
    print("epoch 0: " + evaluate(model, tok, data, a.dev_k, a.max_len), flush=True)
    t0 = time.time()
    step = pairs = 0
    model.train()
    for e, groups in enumerate(epochs, 1):
        for i in range(0, len(groups), GROUPS_PER_BATCH):
            batch = groups[i:i + GROUPS_PER_BATCH]
            qs = [q for q, cs in batch for _ in cs]
            cs = [c for _, cs_ in batch for c in cs_]
            enc = tok(qs, cs, padding=True, truncation=True, max_length=a.max_len, return_tensors="pt")
            logits = model(**enc).squeeze(-1).view(len(batch), -1)
            loss = torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            pairs += len(cs)
            if step % 100 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {pairs/(time.time()-t0):.1f} pairs/s", flush=True)
        print(f"epoch {e}: " + evaluate(model, tok, data, a.dev_k, a.max_len,
                                         dump=os.path.join(a.out, "dev-scores.jsonl") if e == a.epochs else None) +
              f" ({time.time()-t0:.0f} s)", flush=True)
    model.bert.save_pretrained(a.out)
    tok.save_pretrained(a.out)
    json.dump({"layers": a.layers, "scale": model.scale.item(), "bias": model.bias.item(), "max_len": a.max_len,
               "seconds": round(time.time() - t0), "pairs": pairs, "steps": steps}, open(os.path.join(a.out, "head.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
