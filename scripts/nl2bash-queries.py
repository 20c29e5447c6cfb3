#!/usr/bin/env python3
"""Turns the NL2Bash corpus (all.nl: one request per line; all.cm: the
command line answering it, same line) into `cmdai index eval` queries:
{"query": <request>, "command": <expected command>} per line.

The expected command is the first utility of the command line: its first
word, after skipping environment assignments (VAR=value) and the wrappers
sudo, time, nohup, env, command, exec and nice, without any directory
("/usr/bin/find" -> "find"). Pipelines and later commands are ignored:
the first one is what the request is mostly about.

The corpus is two-thirds `find`; --per-command N (default 4) keeps at most
N requests per command, chosen with a fixed seed, so that one command does
not decide the figures.

Usage: scripts/nl2bash-queries.py DIR [--per-command N] [--seed S] > queries.jsonl
"""
import argparse
import collections
import json
import os
import random
import re
import sys

WRAPPERS = {"sudo", "time", "nohup", "env", "command", "exec", "nice"}


def first_utility(cmdline):
    words = cmdline.strip().split()
    while words and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or words[0] in WRAPPERS):
        words = words[1:]
    if not words:
        return None
    name = os.path.basename(words[0])
    return name if re.match(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$", name) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--per-command", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    with open(os.path.join(a.dir, "all.nl"), encoding="utf-8") as f:
        nl = f.read().split("\n")
    with open(os.path.join(a.dir, "all.cm"), encoding="utf-8") as f:
        cm = f.read().split("\n")
    rows = []
    for q, c in zip(nl, cm):
        u = first_utility(c)
        if q.strip() and u:
            rows.append({"query": q.strip(), "command": u})
    random.Random(a.seed).shuffle(rows)
    per = collections.Counter()
    for r in rows:
        if a.per_command <= 0 or per[r["command"]] < a.per_command:
            per[r["command"]] += 1
            sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
