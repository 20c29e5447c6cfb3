#!/usr/bin/env python3
"""Turns the NL2Bash corpus (all.nl: one request per line; all.cm: the
command line answering it, same line) into `cmdai index eval` queries:
{"query": <request>, "command": <expected command>} per line.

The expected command is the first utility of the command line: its first
word, after skipping environment assignments (VAR=value) and the wrappers
sudo, time, nohup, env, command, exec and nice, without any directory
("/usr/bin/find" -> "find"). Pipelines and later commands are ignored:
the first one is what the request is mostly about.

--split train|test (issue #18): each request goes to one part, once and
for all, by a rule that needs no random generator (whose sequence may
change between Python versions): the first 8 bytes of
sha256("cmdai-split-v1:" + request), big-endian, mod 100 below 30 -> test,
else train. The rule reads the request's text only, so the same request
given twice (the corpus has duplicates) lands in one part. Within a part
identical (request, command) rows are kept once, and rows are ordered by
sha256("cmdai-pick-v1:" + request + "\\t" + command), again no RNG. Tune
on train, report test (search/evaluate/requests/nl2bash-split.md).

The corpus is two-thirds `find`; --per-command N (default 4) keeps at most
N requests per command (within the part), so that one command does not
decide the figures. --split all (the default) is the pre-split behaviour,
kept so older figures reproduce: every row, shuffled with --seed.

--counts prints the part sizes (rows before and after the cap) instead
of the queries.

--lines adds each request's command line ("line"), from which `index eval`
takes the options the request needs (its flag figures).

Usage: scripts/research/nl2bash-queries.py DIR [--split all|train|test] [--per-command N] [--seed S] [--counts] [--lines] > queries.jsonl
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import sys

WRAPPERS = {"sudo", "time", "nohup", "env", "command", "exec", "nice"}
SPLIT_SALT = "cmdai-split-v1:"
PICK_SALT = "cmdai-pick-v1:"
TEST_PERCENT = 30


def first_utility(cmdline):
    words = cmdline.strip().split()
    while words and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or words[0] in WRAPPERS):
        words = words[1:]
    if not words:
        return None
    name = os.path.basename(words[0])
    return name if re.match(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$", name) else None


def h64(text):
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def part_of(request):
    """train or test: the split rule, on the stripped request text."""
    return "test" if h64(SPLIT_SALT + request) % 100 < TEST_PERCENT else "train"


def read_rows(d):
    with open(os.path.join(d, "all.nl"), encoding="utf-8") as f:
        nl = f.read().split("\n")
    with open(os.path.join(d, "all.cm"), encoding="utf-8") as f:
        cm = f.read().split("\n")
    rows = []
    for q, c in zip(nl, cm):
        u = first_utility(c)
        if q.strip() and u:
            rows.append({"query": q.strip(), "command": u, "line": c.strip()})
    return rows


def part_rows(rows, part):
    seen = set()
    out = []
    for r in rows:
        key = (r["query"], r["command"])
        if part_of(r["query"]) == part and key not in seen:
            seen.add(key)
            out.append(r)
    out.sort(key=lambda r: (h64(PICK_SALT + r["query"] + "\t" + r["command"]), r["query"], r["command"]))
    return out


def capped(rows, n):
    per = collections.Counter()
    for r in rows:
        if n <= 0 or per[r["command"]] < n:
            per[r["command"]] += 1
            yield r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--split", choices=["all", "train", "test"], default="all")
    ap.add_argument("--per-command", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7, help="shuffle seed of --split all only")
    ap.add_argument("--counts", action="store_true")
    ap.add_argument("--lines", action="store_true",
                    help="add each request's command line as \"line\" (the first of the corpus for that request and command): "
                         "index eval reads the options it uses for the flag figures; the rows chosen are the same")
    a = ap.parse_args()
    rows = read_rows(a.dir)
    if a.counts:
        for p in ("train", "test"):
            pr = part_rows(rows, p)
            kept = list(capped(pr, a.per_command))
            print(f"{p}: {sum(1 for r in rows if part_of(r['query']) == p)} rows, {len(pr)} distinct, "
                  f"{len(kept)} kept (at most {a.per_command} per command), {len({r['command'] for r in kept})} commands")
        return
    if a.split == "all":
        random.Random(a.seed).shuffle(rows)
    else:
        rows = part_rows(rows, a.split)
    for r in capped(rows, a.per_command):
        out = {"query": r["query"], "command": r["command"]}
        if a.lines:
            out["line"] = r["line"]
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
