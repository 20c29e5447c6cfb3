#!/usr/bin/env python3
"""Exit 0 when DIR/manifest.json was written by RECIPE and every file it
lists is there with its sha256; else 1. fetch-model.sh and
build-reranker.sh ask it before rebuilding a model (standard library only:
it runs before their venv exists).

    manifest_current.py DIR RECIPE
"""
import hashlib
import json
import os
import sys


def main():
    out, recipe = sys.argv[1], sys.argv[2]
    try:
        m = json.load(open(os.path.join(out, "manifest.json")))
    except (OSError, ValueError):
        return 1
    if m.get("recipe") != recipe:
        return 1
    for name, want in m.get("files", {}).items():
        h = hashlib.sha256()
        try:
            with open(os.path.join(out, name), "rb") as f:
                for b in iter(lambda: f.read(1 << 20), b""):
                    h.update(b)
        except OSError:
            return 1
        if h.hexdigest() != want:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
