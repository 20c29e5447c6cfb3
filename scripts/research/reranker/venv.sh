#!/usr/bin/env bash
# Makes sure the pinned torch venv (requirements.txt beside this script)
# is installed at VENV, installing it when it is missing or its pins
# changed: what train-reranker.sh and ../train-ranker.sh run PyTorch in.
# 6 GB (PyTorch's Linux wheel carries CUDA), about 2 minutes.
#
#   scripts/research/reranker/venv.sh VENV
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${1:?usage: venv.sh VENV}"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$HERE/requirements.txt" "$VENV/.cmdai-pins"; then
	echo "venv: installing the pinned venv into $VENV" >&2
	python3 -m venv --clear "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps -r "$HERE/requirements.txt"
	cp "$HERE/requirements.txt" "$VENV/.cmdai-pins"
fi
