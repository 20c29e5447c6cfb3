#!/usr/bin/env python3
"""Checks search/evaluate/requests/requests-own.jsonl, the hand-written second test set.

File checks (the Go test search/evaluate/requests/requests_test.go makes the same ones, so CI
needs no Python): every line parses as {"query": ..., "command": ...}, no
request appears twice, no command has more than 8 requests, there are at
least 250 requests over at least 100 commands, and at most 10 % of the
requests name their expected command.

Corpus check (here only, because NL2Bash is not in the repository): with
--nl2bash DIR (holding all.nl), no request equals or nearly equals an
NL2Bash request: Jaccard similarity of their normalised word sets must stay
below 0.8. It prints the closest NL2Bash request for the worst matches, so
the figure can be recorded in search/evaluate/requests/README.md.

Machine check (--installed): every expected command is on $PATH and has a
man page (`man -w CMD`), so that this machine's index can hold it. Not in
the Go test: a CI image may have other commands.

Usage: scripts/research/check-own-requests.py [FILE] [--nl2bash DIR] [--show N] [--installed]
Exit status 1 when a check fails, naming it.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

MAX_PER_COMMAND = 8
MIN_REQUESTS = 250
MIN_COMMANDS = 100
MAX_NAMING_SHARE = 0.10
JACCARD_LIMIT = 0.8


def words(text):
    """Normalised word set: lower case, letters and digits only, so that
    punctuation and case never hide a copy."""
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def names_command(query, command):
    # Tokens keep the characters command names use (c++filt, mkfs.ext4).
    toks = {t.strip(".,:;!?\"'()") for t in query.lower().split()}
    return command.lower() in toks


def file_checks(path):
    errors, reqs = [], []
    seen = set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                errors.append(f"line {n}: not JSON ({e})")
                continue
            q, c = obj.get("query", ""), obj.get("command", "")
            if not isinstance(q, str) or not isinstance(c, str) or not q.strip() or not c.strip():
                errors.append(f'line {n}: want {{"query": "...", "command": "..."}}')
                continue
            key = " ".join(q.lower().split())
            if key in seen:
                errors.append(f"line {n}: duplicate request {q!r}")
            seen.add(key)
            reqs.append((n, q, c))
    per = collections.Counter(c for _, _, c in reqs)
    for c, k in sorted(per.items()):
        if k > MAX_PER_COMMAND:
            errors.append(f"command {c}: {k} requests, at most {MAX_PER_COMMAND}")
    if len(reqs) < MIN_REQUESTS:
        errors.append(f"{len(reqs)} requests, want at least {MIN_REQUESTS}")
    if len(per) < MIN_COMMANDS:
        errors.append(f"{len(per)} commands, want at least {MIN_COMMANDS}")
    naming = [n for n, q, c in reqs if names_command(q, c)]
    if reqs and len(naming) > MAX_NAMING_SHARE * len(reqs):
        errors.append(f"{len(naming)} requests name their command, at most {MAX_NAMING_SHARE:.0%}")
    print(f"{path}: {len(reqs)} requests, {len(per)} commands, "
          f"{len(naming)} name their command (lines {naming[0] if naming else '-'}..{naming[-1] if naming else '-'})")
    return reqs, errors


def nl2bash_check(reqs, corpus_dir, show):
    path = os.path.join(corpus_dir, "all.nl")
    with open(path, encoding="utf-8", errors="replace") as f:
        corpus = [(line.strip(), words(line)) for line in f if line.strip()]
    # An inverted index keeps this to candidates sharing a word.
    by_word = collections.defaultdict(list)
    for i, (_, ws) in enumerate(corpus):
        for w in ws:
            by_word[w].append(i)
    best = []
    for n, q, _ in reqs:
        qw = words(q)
        top, top_i = 0.0, None
        for i in {i for w in qw for i in by_word.get(w, ())}:
            cw = corpus[i][1]
            j = len(qw & cw) / len(qw | cw)
            if j > top:
                top, top_i = j, i
        best.append((top, n, q, corpus[top_i][0] if top_i is not None else ""))
    best.sort(reverse=True)
    print(f"NL2Bash {path}: {len(corpus)} requests; highest Jaccard {best[0][0]:.3f}; "
          f">= {JACCARD_LIMIT}: {sum(1 for b in best if b[0] >= JACCARD_LIMIT)}; "
          f">= 0.5: {sum(1 for b in best if b[0] >= 0.5)}")
    for j, n, q, c in best[:show]:
        print(f"  {j:.3f} line {n}: {q!r}  ~  {c!r}")
    return [f"line {n}: {q!r} nearly equals NL2Bash {c!r} (Jaccard {j:.2f})"
            for j, n, q, c in best if j >= JACCARD_LIMIT]


def installed_check(reqs):
    missing = []
    for c in sorted({c for _, _, c in reqs}):
        if shutil.which(c) is None:
            missing.append(f"command {c}: not on $PATH here")
        elif subprocess.run(["man", "-w", c], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            missing.append(f"command {c}: no man page here (man -w {c} fails)")
    print(f"installed: {len({c for _, _, c in reqs}) - len(missing)} commands on $PATH with a man page, {len(missing)} not")
    return missing


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=os.path.join(here, "..", "..", "search", "evaluate", "requests", "requests-own.jsonl"))
    ap.add_argument("--nl2bash", metavar="DIR", help="directory holding NL2Bash's all.nl")
    ap.add_argument("--show", type=int, default=10, help="print the N closest NL2Bash matches")
    ap.add_argument("--installed", action="store_true", help="check every command is on $PATH with a man page here")
    args = ap.parse_args()
    reqs, errors = file_checks(args.file)
    if args.nl2bash:
        errors += nl2bash_check(reqs, args.nl2bash, args.show)
    else:
        print("NL2Bash overlap not checked: pass --nl2bash DIR (the corpus is not in the repository)")
    if args.installed:
        errors += installed_check(reqs)
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
