#!/usr/bin/env python3
"""Does a set of learned-mode features pay? 5-fold CV on TRAIN, paired.

Fits learned mode's weights (learn-ranker.py's listwise fit, folds and
L2 grid) on an `index eval --features` file with every feature, and
again without the ones named by --drop, each request ranked by weights
fitted on the other folds; prints both CV figures and the paired sign
test on reciprocal rank (RR@10). Fit on TRAIN features only.

  cv-compare-features.py train-features.jsonl --drop name_len,mentions
"""
import argparse
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("cv_feature", os.path.join(HERE, "reranker", "cv_feature.py"))
cvf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cvf)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("--drop", required=True, help="comma-separated feature names to leave out of the baseline")
    a = ap.parse_args()
    reqs = [json.loads(line) for line in open(a.features, encoding="utf-8")]
    every = sorted({f for d in reqs for c in d["candidates"] for f in c["features"]})
    drop = set(a.drop.split(","))
    missing = drop - set(every)
    if missing:
        raise SystemExit(f"cv-compare-features: {sorted(missing)} not in {a.features}: an older cmdai's eval?")
    l2s = (0.0001, 0.001, 0.01, 0.1, 1)
    l2a, base = cvf.cv_rr(reqs, [f for f in every if f not in drop], l2s)
    l2b, new = cvf.cv_rr(reqs, every, l2s)
    cvf.report(f"without {a.drop}", base, l2a)
    cvf.report("with every feature", new, l2b)
    w = sum(x > y for x, y in zip(new, base))
    l = sum(x < y for x, y in zip(new, base))
    h1w = sum(x == 1.0 and y != 1.0 for x, y in zip(new, base))
    h1l = sum(y == 1.0 and x != 1.0 for x, y in zip(new, base))
    print(f"paired on RR@10: {w} better / {l} worse, sign test p = {cvf.sign_p(w, l):.3g}; hit@1 gained {h1w}, lost {h1l}")


if __name__ == "__main__":
    main()
