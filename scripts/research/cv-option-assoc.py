#!/usr/bin/env python3
"""Measure one candidate feature of the option ranker (issue #43) by the
option ranker's own cross-validation, without changing cmdai: how much a
request's words are associated with an option's SPELLING on every OTHER
installed page.

Spellings follow conventions across commands (-r recursive, -a all or
hidden, -h human, -n numeric, -i ignore case...), so an association
learned from other pages could reach an option whose own text uses other
words than the request ("hidden dotfiles" for ls -a, "do not ignore
entries starting with ."). For each page, the pairs (word of an option's
description, its spelling) and (word of an example's description, an
option its line uses) are counted once; a record's feature is the
largest positive PMI of a request word with one of its spellings (and
the log of their sum), over the pages other than its own, pairs seen on
at least 3 pages. Data every page gives, none of the requests.

Reads an export of the index (`cmdai index export`, its records.jsonl)
and the features train-options.sh wrote (WORK/features-*.jsonl), and
prints learn-options.py's 5-fold CV by command with and without the two
features:

  scripts/research/cv-option-assoc.py records.jsonl WORK/features-nl2bash.jsonl WORK/features-own.jsonl

Result on this machine's whole index (docs/benchmarks/retrieval.md,
"Which flag"): top record 49.5 -> 49.1 %, a needed one among the first
8 within the margin 89.6 -> 89.2 %: no gain, not shipped.
"""
import collections
import importlib.util
import json
import math
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("learn_options", os.path.join(HERE, "learn-options.py"))
lo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lo)
BASE = list(lo.FEATURES)

STOP = set("a an the of to in on for and or with by from into at is are be this that it its as any all each if not no do does can will which what how my i me you your".split())
OPT = re.compile(r"(?<![\w-])([-+]{1,2}[A-Za-z0-9][\w-]*)")
MIN_PAGES = 3


def stem(w):
    for suf in ("ing", "ed", "es", "s", "ly"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def terms(text):
    return {stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 1}


def spellings(text):
    return {m.group(1).rstrip("=") for m in OPT.finditer(text)}


def read_pages(path):
    """Each record's (command, kind, spellings), and each page's (terms, spellings) pairs."""
    recs, pages = {}, collections.defaultdict(list)
    for line in open(path, encoding="utf-8"):
        d = json.loads(line)
        md = d["metadata"]
        if md.get("kind") not in ("option", "example"):
            continue
        head, _, body = d["document"].partition("\n")
        cmd = md.get("command", "")
        if md["kind"] == "option":
            sp = spellings(head.partition(" option ")[2])
            desc = terms(" ".join(body.split()[:40]))
        else:
            lines = body.split("\n")
            cmdlines = [x for x in lines if x.strip().startswith("$ ") or x.strip().startswith(cmd + " ")]
            sp = set().union(*(spellings(x) for x in cmdlines)) if cmdlines else set()
            desc = terms(" ".join(x for x in lines if x not in cmdlines))
        recs[d["id"]] = (cmd, md["kind"], sp)
        pages[cmd].append((desc, sp))
    return recs, pages


class Assoc:
    def __init__(self, pages):
        self.n_ts, self.n_t, self.n_s, self.own = collections.Counter(), collections.Counter(), collections.Counter(), {}
        for cmd, items in pages.items():
            pairs = {(t, s) for desc, sp in items for s in sp for t in desc}
            ts = set().union(*(desc for desc, _ in items)) if items else set()
            ss = set().union(*(sp for _, sp in items)) if items else set()
            self.own[cmd] = (pairs, ts, ss)
            self.n_ts.update(pairs)
            self.n_t.update(ts)
            self.n_s.update(ss)
        self.N = len(pages)

    def of(self, cmd, sp, qterms):
        """The largest positive PMI and their sum, the page cmd left out."""
        pairs, ts, ss = self.own.get(cmd, (set(), set(), set()))
        best = total = 0.0
        for s in sp:
            ns = self.n_s[s] - (s in ss)
            if ns <= 0:
                continue
            for t in qterms:
                c = self.n_ts[(t, s)] - ((t, s) in pairs)
                if c < MIN_PAGES:
                    continue
                pmi = math.log((c / (self.n_t[t] - (t in ts))) / (ns / (self.N - 1)))
                if pmi > 0:
                    best, total = max(best, pmi), total + pmi
        return best, total


def load(paths, recs, assoc):
    rows = []
    for path in paths:
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            X = np.array(d["features"], dtype=float).reshape(-1, len(BASE))
            y = np.array(d["labels"], dtype=bool)
            if not (y.any() and len(y) > 1):
                continue
            if assoc is not None:
                q = terms(d["query"])
                extra = []
                for rid in d["ids"]:
                    _, kind, sp = recs.get(rid, (d["command"], "", set()))
                    b, t = assoc.of(d["command"], sp, q) if kind == "option" else (0.0, 0.0)
                    extra.append([b / 5, math.log1p(t) / 3])
                X = np.hstack([X, np.array(extra)])
            rows.append((d["command"], d["source"], X, y))
    return rows


def cv(rows, names, label):
    lo.FEATURES = names
    lo.cv_report(rows, label)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    recs, pages = read_pages(sys.argv[1])
    assoc = Assoc(pages)
    print(f"{assoc.N} pages, {len(assoc.n_ts)} (word, spelling) pairs", file=sys.stderr)
    cv(load(sys.argv[2:], recs, None), BASE, "today's features")
    cv(load(sys.argv[2:], recs, assoc), BASE + ["assoc", "assoc_sum"], "with the spelling association")


if __name__ == "__main__":
    main()
