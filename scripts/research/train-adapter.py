#!/usr/bin/env python3
"""Fit a query adapter for learned/semantic mode on TRAIN requests only.

A query adapter (Chroma's "embedding adapters" report, 2023) is a linear
map u = normalise(W q + b) of the request's embedding q; the index keeps
its all-MiniLM-L6-v2 vectors. W starts at the identity and is fitted so
that each train request's vector moves toward its expected command's
vectors in the index and away from every other command's: a softmax over
all indexed commands (subcommand pages count for their parent, as `index
eval` counts them) of the cosine with the command's one-line description
vector (what learned mode's desc features use) and, separately, with its
summary chunk (NAME + SYNOPSIS + DESCRIPTION's start), plus an L2 penalty
lam * (|W - I|^2 + |b|^2). lam is chosen by 5-fold cross-validation over
the requests (folds by a hash of the request, as learn-ranker.py's
fold_of) on the mean MRR@10 of three proxy rankings of held-out requests:
by description, by summary chunk and by a command's best chunk of any
kind (what semantic mode groups). The adapter of the chosen lam, fitted
on every request, is written in search/adapter's format.

Inputs, all from the index being adapted (never write to it: pass a copy
of its Chroma directory, which chromadb may touch):
  --chroma-dir   the index's Chroma data directory (a copy), read with
                 chromadb: run this with the Chroma venv's python
                 (.tools/chroma/venv/bin/python: numpy and chromadb)
  --desc         keywords/descriptions-*.vec, learned mode's description
                 vectors (one per command, commands sorted)
  --vectors      `cmdai index eval --queries TRAIN --vectors FILE`: each
                 train request's vector as cmdai embeds it
  --pseudo       optional, the same for pseudo-requests from the man pages'
                 options (`train-adapter.py pseudo` writes their requests)

  python train-adapter.py fit --chroma-dir D --desc F.vec --vectors V.jsonl \\
      [--pseudo P.jsonl] --out adapter.bin [--folds-out DIR]
  python train-adapter.py pseudo --chroma-dir D > pseudo.jsonl

  python train-adapter.py pool --mode learned --folds DIR/fold-*.jsonl \\
      --base NOADAPTER-misses.jsonl... --adapted DIR/adapted-*.jsonl

--folds-out DIR also writes, per fold k, fold-k.adapter (fitted without
fold k, at the chosen lam) and fold-k.jsonl (fold k's requests), so that
`index eval --queries DIR/fold-k.jsonl --adapter DIR/fold-k.adapter`
measures each request with an adapter that never saw it; `pool` pairs
those runs' --misses files with a run without adapter (sign test on RR@10).

Caveat (measured): the adapter acts as a per-command prior: it helps
requests for commands that had train requests and costs those without.
See the issue #32 adapter notes before using it anywhere.
"""
import argparse
import hashlib
import json
import math
import re
import struct
import sys

import numpy as np

MAGIC = b"cmdai-adapter1\n"
SCALE = 20.0  # softmax temperature 1/20: cosines of this model span ~0.1-0.8
STEPS, LR = 200, 3e-3
LAMS = (10.0, 3.0, 1.0, 0.3, 0.1, 0.03)  # 0.03 kept (issue 32 notes); the CV was still rising there


def fold_of(query, k=5):
    return int(hashlib.sha256(("cmdai-ranker-fold:" + query).encode()).hexdigest(), 16) % k


def read_collection(chroma_dir, name, with_docs=False):
    import chromadb
    client = chromadb.PersistentClient(path=chroma_dir)
    cols = [c.name for c in client.list_collections()]
    if name is None:
        if len(cols) != 1:
            sys.exit(f"--collection: the directory holds {cols}: name one")
        name = cols[0]
    col = client.get_collection(name)
    inc = ["embeddings", "metadatas"] + (["documents"] if with_docs else [])
    ids, vecs, metas, docs = [], [], [], []
    n = col.count()
    for off in range(0, n, 2000):
        r = col.get(include=inc, offset=off, limit=2000)
        ids += r["ids"]
        vecs.append(np.asarray(r["embeddings"], np.float32))
        metas += r["metadatas"]
        docs += r["documents"] if with_docs else [None] * len(r["ids"])
    order = sorted(range(len(ids)), key=lambda i: ids[i])  # the server's order is not fixed
    return np.concatenate(vecs)[order], [metas[i] for i in order], [docs[i] for i in order]


class Index:
    """The index's commands and their vectors."""

    def __init__(self, chroma_dir, collection, desc_path):
        vecs, metas, _ = read_collection(chroma_dir, collection)
        self.units = sorted({m["command"] for m in metas})
        ui = {c: i for i, c in enumerate(self.units)}
        self.parent = {m["command"]: m["parent_command"] for m in metas if m.get("parent_command")}
        cmd = np.array([ui[m["command"]] for m in metas])
        order = np.argsort(cmd, kind="stable")
        self.chunks, cmd = vecs[order], cmd[order]
        self.starts = np.r_[0, np.flatnonzero(np.diff(cmd)) + 1]
        self.summary = np.zeros((len(self.units), vecs.shape[1]), np.float32)
        for j in order[[metas[i]["kind"] == "summary" for i in order]]:
            self.summary[ui[metas[j]["command"]]] = vecs[j]
        raw = open(desc_path, "rb").read()
        if not raw.startswith(b"cmdai-desc1\n"):
            sys.exit(f"--desc {desc_path}: not a description vector file")
        count, dims = struct.unpack("<2I", raw[12:20])
        if count != len(self.units) or dims != vecs.shape[1]:
            sys.exit(f"--desc {desc_path}: {count}x{dims}, the index has {len(self.units)} commands of {vecs.shape[1]}: another index's file")
        self.desc = np.frombuffer(raw[20:], "<f4").reshape(count, dims).copy()

    def positives(self, commands):
        """Which units count as each expected command (itself, its subcommand pages)."""
        P = np.zeros((len(commands), len(self.units)), bool)
        ui = {c: i for i, c in enumerate(self.units)}
        kids = {}
        for c, p in self.parent.items():
            kids.setdefault(p, []).append(ui[c])
        for i, c in enumerate(commands):
            if c not in ui and c not in kids:
                sys.exit(f"expected command {c!r} is not in this index: embed requests against the same index")
            P[i, [ui[c]] if c in ui else []] = True
            P[i, kids.get(c, [])] = True
        return P

    def best_chunk(self, U):
        return np.maximum.reduceat(U @ self.chunks.T, self.starts, axis=1)


def read_vectors(path):
    qs, cs, vs = [], [], []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        qs.append(r["query"]), cs.append(r["command"]), vs.append(r["vector"])
    return qs, cs, np.asarray(vs, np.float32)


def softmax_loss(U, T, P):
    """Mean -log P(an expected command) over the rows, and its gradient in U."""
    L = SCALE * U @ T.T
    L -= L.max(1, keepdims=True)
    p = np.exp(L)
    p /= p.sum(1, keepdims=True)
    pp = np.where(P, p, 0)
    sp = pp.sum(1, keepdims=True)
    return -np.log(sp).mean(), SCALE * ((p - pp / sp) / len(U)) @ T


def fit(Q, P, lam, index):
    d = Q.shape[1]
    eye = np.eye(d, dtype=np.float32)
    W, b = eye.copy(), np.zeros(d, np.float32)
    m = [np.zeros_like(W), np.zeros_like(b)]
    v = [np.zeros_like(W), np.zeros_like(b)]
    for t in range(1, STEPS + 1):
        X = Q @ W.T + b
        norm = np.linalg.norm(X, axis=1, keepdims=True)
        U = X / norm
        dU = softmax_loss(U, index.desc, P)[1] + softmax_loss(U, index.summary, P)[1]
        dX = (dU - U * (U * dU).sum(1, keepdims=True)) / norm
        grads = (dX.T @ Q + 2 * lam * (W - eye), dX.sum(0) + 2 * lam * b)
        for i, (w, g) in enumerate(zip((W, b), grads)):  # Adam
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            w -= LR * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    return W, b


def apply(W, b, Q):
    X = Q @ W.T + b
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def ranks(S, P):
    best = np.where(P, S, -np.inf).max(1)
    return 1 + (S > best[:, None]).sum(1)


def figures(r):
    return {"hit1": float((r == 1).mean()), "hit5": float((r <= 5).mean()), "mrr10": float(np.where(r <= 10, 1 / r, 0).mean())}


def proxy(U, P, index):
    """The three proxy rankings' figures for vectors U."""
    return {"desc": figures(ranks(U @ index.desc.T, P)), "summary": figures(ranks(U @ index.summary.T, P)),
            "best_chunk": figures(ranks(index.best_chunk(U), P))}


def score(fig):
    return np.mean([f["mrr10"] for f in fig.values()])


def encode(W, b):
    d = W.shape[0]
    body = MAGIC + struct.pack("<2I", d, 1) + W.astype("<f4").tobytes() + b.astype("<f4").tobytes()
    return body + hashlib.sha256(body).digest()


def cmd_fit(a):
    np.random.seed(0)  # nothing is random today; kept so that a change stays reproducible
    index = Index(a.chroma_dir, a.collection, a.desc)
    queries, commands, Q = read_vectors(a.vectors)
    P = index.positives(commands)
    folds = np.array([fold_of(q) for q in queries])
    extra_Q, extra_P = np.zeros((0, Q.shape[1]), np.float32), np.zeros((0, P.shape[1]), bool)
    if a.pseudo:
        _, pc, extra_Q = read_vectors(a.pseudo)
        extra_P = index.positives(pc)
        print(f"{len(pc)} pseudo-requests added to every fold's fit", file=sys.stderr)
    print(f"{len(queries)} train requests over {len(set(commands))} commands; {len(index.units)} indexed commands", file=sys.stderr)
    print("identity (no adapter):", json.dumps(proxy(Q, P, index)), file=sys.stderr)
    lams = [float(x) for x in a.l2.split(",")]
    cv, fitted = {}, {}
    for lam in lams:
        U = np.zeros_like(Q)
        for k in range(5):
            tr = folds != k
            fitted[lam, k] = fit(np.vstack([Q[tr], extra_Q]), np.vstack([P[tr], extra_P]), lam, index)
            U[~tr] = apply(*fitted[lam, k], Q[~tr])
        cv[lam] = proxy(U, P, index)
        print(f"lam {lam:g}, 5-fold CV:", json.dumps(cv[lam]), file=sys.stderr, flush=True)
    lam = max(lams, key=lambda x: score(cv[x]))
    print(f"chosen lam {lam:g} (best mean MRR@10 of the three proxies)", file=sys.stderr)
    if a.folds_out:
        for k in range(5):
            tr = folds != k
            W, b = fitted[lam, k]
            with open(f"{a.folds_out}/fold-{k}.adapter", "wb") as f:
                f.write(encode(W, b))
            with open(f"{a.folds_out}/fold-{k}.jsonl", "w", encoding="utf-8") as f:
                for i in np.flatnonzero(~tr):
                    f.write(json.dumps({"query": queries[i], "command": commands[i]}) + "\n")
        with open(f"{a.folds_out}/commands.txt", "w", encoding="utf-8") as f:
            f.write("".join(u + "\n" for u in index.units))  # the --desc file's rows (adapter-features.py)
        print(f"wrote {a.folds_out}/fold-*.adapter, fold-*.jsonl and commands.txt", file=sys.stderr, flush=True)
    W, b = fit(np.vstack([Q, extra_Q]), np.vstack([P, extra_P]), lam, index)
    with open(a.out, "wb") as f:
        f.write(encode(W, b))


def cmd_pseudo(a):
    """One pseudo-request per option chunk, up to --per-command per command:
    the option's description's first sentence, the command's names removed."""
    _, metas, docs = read_collection(a.chroma_dir, a.collection, with_docs=True)
    cands = []
    for m, doc in zip(metas, docs):
        if m["kind"] != "option" or "\n" not in doc:
            continue
        cmd = m.get("parent_command") or m["command"]
        text = re.split(r"(?<=[.;:])\s", doc.split("\n", 1)[1].strip(), maxsplit=1)[0].rstrip(".;:")
        names = {cmd, m["command"]} | set(filter(None, (m.get("aliases") or "").split(",")))
        for n in names:
            text = re.sub(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", "", text)
        text = " ".join(text.split())
        if len(text.split()) >= 4:
            cands.append((cmd, text))
    # "display this help and exit" names no command: drop any text that
    # two commands or more share
    owners = {}
    for cmd, text in cands:
        owners.setdefault(text.lower(), set()).add(cmd)
    seen = {}
    for cmd, text in cands:
        if len(owners[text.lower()]) > 1 or seen.get(cmd, 0) >= a.per_command:
            continue
        seen[cmd] = seen.get(cmd, 0) + 1
        print(json.dumps({"query": text, "command": cmd}))


def read_rr(misses, mode, k=10):
    """Reciprocal rank at k per (query, command) of one mode's misses file
    (a request not in it was first)."""
    out = {}
    for line in open(misses, encoding="utf-8"):
        m = json.loads(line)
        if m["mode"] == mode:
            out[(m["query"], m["command"])] = 1 / m["rank"] if m["rank"] and m["rank"] <= k else 0.0
    return out


def sign_test(wins, losses):
    n, x = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(x + 1)) / 2 ** n)


def cmd_pool(a):
    """Pool per-fold `index eval --misses` runs: each request scored by the
    adapter of its own fold (--adapted) against the same request without
    one (--base), on the requests of the fold files (--folds): one misses
    file per fold each, in the same order."""
    if not len(a.folds) == len(a.base) == len(a.adapted):
        sys.exit("pool: give as many --base and --adapted misses files as --folds files")
    only = {json.loads(line)["query"] for line in open(a.only, encoding="utf-8")} if a.only else None
    pairs = []
    for fold_file, base_misses, misses in zip(a.folds, a.base, a.adapted):
        base, adapted = read_rr(base_misses, a.mode), read_rr(misses, a.mode)
        for line in open(fold_file, encoding="utf-8"):
            r = json.loads(line)
            key = (r["query"], r["command"])
            if only is not None and r["query"] not in only:
                continue
            pairs.append((base.get(key, 1.0), adapted.get(key, 1.0)))
    b, o = np.array(pairs).T
    w, l = int((o > b).sum()), int((o < b).sum())

    def figs(rr):
        return f"hit@1 {100 * (rr == 1).mean():.1f} %, hit@5 {100 * (rr >= 0.2).mean():.1f} %, MRR@10 {rr.mean():.3f}"
    print(f"{a.mode}, {len(b)} requests: no adapter {figs(b)}; adapter {figs(o)}; "
          f"wins {w}, losses {l}, ties {len(b) - w - l}, sign test p = {sign_test(w, l):.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--vectors", required=True)
    f.add_argument("--desc", required=True)
    f.add_argument("--pseudo")
    f.add_argument("--out", required=True)
    f.add_argument("--folds-out")
    f.add_argument("--l2", default=",".join(f"{x:g}" for x in LAMS), help="comma-separated penalties to cross-validate")
    p = sub.add_parser("pseudo")
    p.add_argument("--per-command", type=int, default=4)
    q = sub.add_parser("pool")
    q.add_argument("--mode", default="learned")
    q.add_argument("--base", nargs="+", required=True)
    q.add_argument("--only", help="a requests file: pool only its requests (one train set of several)")
    q.add_argument("--folds", nargs="+", required=True)
    q.add_argument("--adapted", nargs="+", required=True)
    for s in (f, p):
        s.add_argument("--chroma-dir", required=True)
        s.add_argument("--collection")
    a = ap.parse_args()
    {"fit": cmd_fit, "pseudo": cmd_pseudo, "pool": cmd_pool}[a.cmd](a)


if __name__ == "__main__":
    main()
