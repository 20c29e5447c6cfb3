#!/usr/bin/env python3
"""Pair two runs of `index eval --outcomes` on the same requests.

Each outcomes file has one JSON line per request (and mode): its query,
expected command, rank, how many needed option records the index holds
(need, -1 when the request carries no options) and whether the expected
command's block showed one (flag). This prints, for the whole set and for
the requests whose command no train request names (the "uncovered"
slice: --train FILE..., the request files the rankers were fitted on),
hit@1 and flag@1 of both runs and flag given cmd, with the paired wins,
losses and the exact two-sided sign test, as search/evalstat does.

  paired-outcomes.py base.jsonl new.jsonl [--mode learned] [--train train1.jsonl train2.jsonl ...]
"""
import argparse
import json
import math


def load(path, mode):
    out = {}
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        if mode is None or o["mode"] == mode:
            out[(o["query"], o["command"])] = o
    return out


def sign_p(wins, losses):
    n = wins + losses
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2 ** n)


def paired(name, keys, a, b, value):
    xs = [value(a[k]) for k in keys]
    ys = [value(b[k]) for k in keys]
    w = sum(y > x for x, y in zip(xs, ys))
    l_ = sum(y < x for x, y in zip(xs, ys))
    n = max(1, len(keys))
    return f"{name} {100 * sum(xs) / n:.1f} -> {100 * sum(ys) / n:.1f} (W/L {w}/{l_}, p = {sign_p(w, l_):.3g})"


def given(keys, runs):
    out = []
    for r in runs:
        g = [k for k in keys if 1 <= r[k]["rank"] <= 5]
        out.append(f"{100 * sum(r[k]['flag'] for k in g) / max(1, len(g)):.1f} ({len(g)})")
    return " -> ".join(out)


def report(label, keys, a, b):
    flagged = [k for k in keys if a[k]["need"] >= 0]
    print(f"{label}: {len(keys)} requests, {len(flagged)} carry options")
    print("  " + paired("hit@1", keys, a, b, lambda o: float(o["rank"] == 1)))
    if flagged:
        print("  " + paired("flag@1", flagged, a, b, lambda o: float(o["rank"] == 1 and o["flag"])))
        print("  flag given cmd " + given(flagged, (a, b)))
        held = sum(a[k]["need"] > 0 for k in flagged)
        print(f"  ceiling (the index holds a needed option) {100 * held / len(flagged):.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--mode")
    ap.add_argument("--train", nargs="*", default=[])
    args = ap.parse_args()
    a, b = load(args.base, args.mode), load(args.new, args.mode)
    keys = [k for k in a if k in b]
    if len(keys) != len(a) or len(keys) != len(b):
        raise SystemExit(f"the runs hold different requests ({len(a)}, {len(b)}, {len(keys)} shared): run both on one file")
    report("all", keys, a, b)
    if args.train:
        covered = set()
        for path in args.train:
            for line in open(path, encoding="utf-8"):
                if line.strip():
                    covered.add(json.loads(line)["command"])
        report("uncovered (no train request names the command)", [k for k in keys if k[1] not in covered], a, b)


if __name__ == "__main__":
    main()
