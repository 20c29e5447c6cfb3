#!/usr/bin/env python3
"""Pseudo-requests from every indexed page's own examples, for fitting
learned mode's weights on commands no train request names (issue #43:
"reach the other commands through data every page gives").

Each example record's description (the paragraphs before its command
line, as `index eval --page-examples` splits it) becomes a request for
the example's command, with the command's name and any flag-like word
taken out (a person asking does not know them), if 3 to 40 words remain;
at most --per-command of them a command, in page order. With --delete,
the examples they came from are deleted from the collection, so that
`index eval` on that index finds each request's command through the rest
of its page, never through the record it was made from: run it on a COPY
of an index only (then remove the copy's keyword index and records'
vectors, which are rebuilt from the collection).

  pseudo-requests.py --chroma-dir COPY/chroma [--per-command 3] [--delete] > pseudo.jsonl

--from options makes them from option records instead (a check that
what was fitted on the examples' requests carries to text of another
kind): the first sentence of an option's description, one option a
command (the one whose id hashes lowest), flags and the name taken out.

Writes JSON Lines {"query", "command", "example"} (example: the record's
id), what `index eval --queries` reads.
"""
import argparse
import hashlib
import json
import re
import sys

FILLER = re.compile(r"\b(the|this|following) commands?\b\s*$", re.I)


def split_example(text, command):
    """The description and the command line of an example record:
    evalcmd.splitExample's rule (the first paragraph after the first that
    runs the command, else the last)."""
    if "\n" not in text:
        return "", ""
    paras = text.split("\n", 1)[1].strip().split("\n\n")
    if len(paras) < 2:
        return "", ""
    at = len(paras) - 1
    name = command.split("-", 1)[0]
    for i in range(1, len(paras)):
        if runs(paras[i], command, name):
            at = i
            break
    return " ".join(" ".join(paras[:at]).split()), paras[at].strip()


def runs(line, command, name):
    w = line.split()
    while w and w[0] in ("$", "#", "sudo"):
        w = w[1:]
    return bool(w) and (w[0] in (command, name) or w[0].endswith("/" + command))


def request_of(desc, command):
    """The description as a request: without the command's name, flags
    and list numbers ("2."), and without a trailing "the command:"."""
    name = command.split("-", 1)[0].lower()
    words = [w for w in desc.split()
             if not w.startswith("-") and not re.fullmatch(r"\d+\.", w)
             and w.strip(".,:;()'\"`").lower() not in (command.lower(), name)]
    q = " ".join(words).strip().rstrip(":").strip()
    return FILLER.sub("", q).strip().rstrip(",:").strip()


def example_order(rid):
    head, _, n = rid.rpartition("#")
    return (head, int(n) if n.isdigit() else 0)


def option_requests(recs, per_command):
    """(id, command, request) of option records: the first sentence of
    the description, the heading line (its spellings) left out; one that
    another page says too ("output version information and exit") names
    no command and is not used."""
    by, pages = {}, {}
    for rid, doc, md in recs:
        c = md.get("command", "")
        body = doc.split("\n", 1)[1] if "\n" in doc else ""
        first = re.split(r"(?<=[.;])\s", " ".join(body.split()), maxsplit=1)[0].rstrip(".;")
        q = request_of(first, c)
        pages.setdefault(q.lower(), set()).add(c)
        if c and 4 <= len(q.split()) <= 30:
            by.setdefault(c, []).append((hashlib.sha256(rid.encode()).hexdigest(), rid, q))
    for c in by:
        by[c] = [e for e in by[c] if len(pages[e[2].lower()]) == 1]
    for c in sorted(by):
        for _, rid, q in sorted(by[c])[:per_command]:
            yield rid, c, q


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chroma-dir", required=True)
    ap.add_argument("--collection", default="", help="default: the directory's only collection")
    ap.add_argument("--per-command", type=int, default=3)
    ap.add_argument("--delete", action="store_true", help="delete the records used from the collection (a copy's!)")
    ap.add_argument("--from", dest="source", choices=["examples", "options"], default="examples")
    a = ap.parse_args()
    import chromadb

    client = chromadb.PersistentClient(path=a.chroma_dir)
    names = [getattr(c, "name", c) for c in client.list_collections()]
    name = a.collection or (names[0] if len(names) == 1 else "")
    if not name:
        sys.exit(f"pseudo-requests: {len(names)} collections in {a.chroma_dir}: name one with --collection")
    coll = client.get_collection(name)
    kind = "example" if a.source == "examples" else "option"
    got = coll.get(where={"kind": kind}, include=["documents", "metadatas"])
    recs = sorted(zip(got["ids"], got["documents"], got["metadatas"]), key=lambda r: example_order(r[0]))
    taken, used = {}, []
    if a.source == "options":
        for rid, c, q in option_requests(recs, a.per_command):
            taken[c] = taken.get(c, 0) + 1
            used.append(rid)
            print(json.dumps({"query": q, "command": c, "option": rid}))
        recs = []
    for rid, doc, md in recs:
        c = md.get("command", "")
        if not c or taken.get(c, 0) >= a.per_command:
            continue
        desc, line = split_example(doc, c)
        if not desc or not line or not runs(line, c, c.split("-", 1)[0]):
            continue
        q = request_of(desc, c)
        if not 3 <= len(q.split()) <= 40:
            continue
        taken[c] = taken.get(c, 0) + 1
        used.append(rid)
        print(json.dumps({"query": q, "command": c, "example": rid}))
    if a.delete and used:
        coll.delete(ids=used)
    print(f"pseudo-requests: {len(used)} requests over {len(taken)} commands"
          + (f"; their records deleted from {name} ({coll.count()} records left)" if a.delete else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
