#!/usr/bin/env python3
"""Make the reranker's training groups from TRAIN data only.

A group is one request with its command card first and hard negatives
after it: (request, [positive card, negative card, ...]). A card is
"NAME: one-line description", what the index holds for every command
(its summary record's description), so a model reading it needs nothing
the index does not have.

Two sources:
  (a) the train requests (search/evaluate/requests/requests-train.jsonl and
      NL2Bash's train split) with their hard negatives: learned mode's own
      top 20 for the request, read from `cmdai index eval --features`;
  (b) pseudo-requests from the installed pages themselves
      (`cmdai index scan --json`): each option's description and each
      example's prose, with the command's own name and flag spellings taken
      out, as a request for that command; negatives are the commands whose
      cards are nearest to it by the embedder (all-MiniLM-L6-v2 mean pooled).

A dev slice of (a) is held back (a hash of the request), so training can
be judged without a test set. Nothing here reads a test set.

  make_data.py --scan scan.jsonl --features train-features.jsonl \
      --weights search/ranker/ranker.go --model DIR --out data.json
"""
import argparse
import hashlib
import json
import random
import re
import sys

SEED = 1234
DEV_SALT = "cmdai-rerank-dev-v1:"


def dev_bucket(query):
    return int.from_bytes(hashlib.sha256((DEV_SALT + query).encode()).digest()[:8], "big") % 100


def read_weights(path):
    """learned mode's Default weights: from a JSON file, or parsed out of
    search/ranker/ranker.go so the order matches the shipped ranker."""
    text = open(path, encoding="utf-8").read()
    if path.endswith(".json"):
        return json.loads(text)
    m = re.search(r"var Default = Weights\{([^}]*)\}", text)
    if not m:
        sys.exit(f"make_data: no `var Default = Weights{{...}}` in {path}")
    return {k: float(v) for k, v in re.findall(r'"([a-z_]+)":\s*(-?[0-9.e-]+)', m.group(1))}


def cards_from_scan(path):
    cards, pages = {}, {}
    for line in open(path, encoding="utf-8"):
        d = json.loads(line)
        if d.get("type") != "command" or d.get("status") != "parsed":
            continue
        name = d["command"] if not d.get("parent") else d["chunks"][0]["metadata"]["command"]
        cards[name] = card(name, d.get("description", ""))
        pages[name] = d
    return cards, pages


def card(name, description):
    description = " ".join(description.split())
    return f"{name}: {description}" if description else name


FLAG = re.compile(r"(?<![\w-])--?[\w][\w-]*(=\S+)?")


def pseudo_text(text, names):
    """The prose of an option or example chunk with the command's names
    and flag spellings removed, cut to its first sentence."""
    lines = text.split("\n")[1:]  # the first line is "cmd(1) option -a, --all"
    prose = " ".join(l for l in lines if l.strip())
    prose = FLAG.sub(" ", prose)
    for n in sorted(names, key=len, reverse=True):
        prose = re.sub(r"(?i)(?<![\w.-])" + re.escape(n) + r"(?![\w-])", " ", prose)
    prose = re.split(r"(?<=[.;:])\s", prose.strip(), maxsplit=1)[0]
    words = [w for w in prose.strip(" .;:,").split() if w]
    if not 4 <= len(words) <= 24:
        return None
    return " ".join(words)


def pseudo_requests(pages, per_command, rng):
    """Up to per_command pseudo-requests per page; a text that several
    pages share ("output version information and exit", "same as above")
    names no command and is dropped."""
    by_page = {}
    for name in sorted(pages):
        d = pages[name]
        names = {name, name.split("-")[-1] if d.get("parent") else name} | set(d.get("aliases") or [])
        texts = []
        for c in d.get("chunks") or []:
            kind = c["metadata"].get("kind")
            if kind in ("option", "example"):
                t = pseudo_text(c["text"], names)
                if t and t.lower() not in {x.lower() for x in texts}:
                    texts.append(t)
        by_page[name] = texts
    shared = {}
    for texts in by_page.values():
        for t in texts:
            shared[t.lower()] = shared.get(t.lower(), 0) + 1
    out = []
    for name, texts in by_page.items():
        texts = [t for t in texts if shared[t.lower()] == 1]
        rng.shuffle(texts)
        out += [{"query": t, "command": name, "source": "page"} for t in texts[:per_command]]
    return out


def learned_top(path, weights, k):
    rows = []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        cands = r["candidates"]
        score = lambda c: sum(weights.get(f, 0.0) * v for f, v in sorted(c["features"].items()))
        ranked = sorted(cands, key=lambda c: (-score(c), c["command"]))
        rows.append({"query": r["query"], "command": r["command"], "top": [c["command"] for c in ranked[:k]]})
    return rows


def nearest_negatives(reqs, cards, model_dir, k, batch=64):
    """For each pseudo-request, the k commands whose cards are nearest by
    the embedder, the positive left out."""
    import numpy as np
    from transformers import AutoModel, AutoTokenizer

    from model import embed_all
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    embed = lambda texts: embed_all(model, tok, texts, 64, batch)  # noqa: E731
    names = sorted(cards)
    C = embed([cards[n] for n in names])
    Q = embed([r["query"] for r in reqs])
    sims = Q @ C.T
    for r, row in zip(reqs, sims):
        pos_card = cards[r["command"]]
        order = np.argsort(-row, kind="stable")
        r["top"] = [names[j] for j in order[: k + 8] if names[j] != r["command"] and cards[names[j]] != pos_card][:k]
    return reqs


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scan", required=True, help="`cmdai index scan --json` of the machine")
    p.add_argument("--features", required=True, nargs="+", help="`cmdai index eval --features` of TRAIN requests")
    p.add_argument("--weights", required=True, help="search/ranker/ranker.go or a weights JSON")
    p.add_argument("--model", required=True, help="all-MiniLM-L6-v2 (Hugging Face layout) for the pseudo-requests' negatives")
    p.add_argument("--per-command", type=int, default=6, help="pseudo-requests per command")
    p.add_argument("--top", type=int, default=20, help="hard negatives are drawn from this many")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    rng = random.Random(SEED)
    cards, pages = cards_from_scan(a.scan)
    weights = read_weights(a.weights)
    real = []
    for path in a.features:
        real += learned_top(path, weights, a.top)
    missing = sorted({r["command"] for r in real} - set(cards))
    real = [r for r in real if r["command"] in cards]
    for r in real:
        r["learned"] = [c for c in r["top"] if c in cards]
        r["top"] = [c for c in r["learned"] if c != r["command"]]
        r["source"] = "request"
    dev = [r for r in real if dev_bucket(r["query"]) < 20]
    train = [r for r in real if dev_bucket(r["query"]) >= 20]
    pseudo = nearest_negatives(pseudo_requests(pages, a.per_command, rng), cards, a.model, a.top)
    json.dump({"cards": cards, "train": train, "pseudo": pseudo, "dev": dev}, open(a.out, "w"), indent=0)
    print(f"make_data: {len(cards)} cards, {len(train)} train requests, {len(dev)} dev requests, "
          f"{len(pseudo)} pseudo-requests; {len(missing)} expected commands not on this machine's pages", file=sys.stderr)


if __name__ == "__main__":
    main()
