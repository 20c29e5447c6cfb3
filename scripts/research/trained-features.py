#!/usr/bin/env python3
"""Adds the gated copies of the reranker's and the query adapter's
features to an `index eval --features` file, as ranker.SetTrained does:
trained_rerank_gap, trained_rr_rerank, trained_adesc_gap and
trained_rr_adesc are rerank_gap, rr_rerank, adesc_gap and rr_adesc for a
candidate command a train request names, else 0.

With --out-of-fold (features of the train requests themselves, their
reranker and adapter features from models fitted without their fold:
cv_tune.py, adapter-features.py), a command counts as trained toward
only when a request of another fold names it (learn-ranker.py's folds):
what the fold's models were trained toward. Without it (requests the
models never saw), when any train request names it.

  trained-features.py FEATURES.jsonl OUT.jsonl --train train.jsonl [--out-of-fold] [--commands-out FILE]

--commands-out writes the commands the train requests name, one a line
(search/ranker/trained-commands.txt, which the Go side embeds).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reranker"))
import cv_feature as cvf  # noqa: E402  (learn-ranker.py's folds)

PAIRS = [("trained_rerank_gap", "rerank_gap"), ("trained_rr_rerank", "rr_rerank"),
         ("trained_adesc_gap", "adesc_gap"), ("trained_rr_adesc", "rr_adesc")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("features")
    ap.add_argument("out")
    ap.add_argument("--train", required=True, help="the train requests (JSON Lines with \"query\" and \"command\")")
    ap.add_argument("--out-of-fold", action="store_true")
    ap.add_argument("--commands-out")
    a = ap.parse_args()
    folds = {}
    for line in open(a.train, encoding="utf-8"):
        d = json.loads(line)
        folds.setdefault(d["command"], set()).add(cvf.lr.fold_of(d["query"]))
    if a.commands_out:
        with open(a.commands_out, "w", encoding="utf-8") as f:
            f.writelines(c + "\n" for c in sorted(folds))
    with open(a.out, "w", encoding="utf-8") as out:
        for line in open(a.features, encoding="utf-8"):
            r = json.loads(line)
            k = cvf.lr.fold_of(r["query"]) if a.out_of_fold else -1
            for c in r["candidates"]:
                on = bool(folds.get(c["command"], set()) - {k})
                f = c["features"]
                for gated, src in PAIRS:
                    f[gated] = f.get(src, 0.0) if on else 0.0
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
