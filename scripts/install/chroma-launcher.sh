#!/bin/sh
# The Chroma server cmdai starts: chromadb as pinned by
# scripts/install/chroma-constraints.txt, which `make install` put with
# `pip install --target` in ../site-packages beside this script, and the
# program that starts it: ../lean.py, the very file cmdai runs for pip's
# entry point (chroma/launcher/lean.py, installed as it is). It finds
# its files from its own path, so the installation may be staged under
# DESTDIR or moved, and runs the Python its packages were installed for
# (scripts/install/install.sh writes that version below).
set -eu
want="@PYTHON_VERSION@"
self=$(readlink -f -- "$0" 2>/dev/null) || self=$0
root=$(dirname -- "$(dirname -- "$self")")
site=$root/site-packages

# The packages hold compiled modules for one Python minor version.
py=""
for cand in "${CMDAI_CHROMA_PYTHON:-python$want}" "python$want" python3; do
	if command -v "$cand" >/dev/null 2>&1 &&
		[ "$("$cand" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$want" ]; then
		py=$cand
		break
	fi
done
if [ -z "$py" ]; then
	echo "chroma: no Python $want on PATH, which the Chroma server in $site was installed for: install python$want, or run \`make install\` again with the Python you have (or \`pipx install chromadb\` at the version \`cmdai doctor\` names)" >&2
	exit 127
fi

# -I: ignore PYTHON* variables and the user's site-packages, and put
# neither the current directory nor lean.py's first on the import path; -S:
# and the system's site-packages, so that only the pinned packages are
# imported (lean.py adds $site). The server is the Rust one in
# chromadb_rust_bindings: started straight from there, as cmdai does for
# pip's entry point (chroma/launcher), it answers --version in tens of
# milliseconds instead of importing the whole chromadb package (about a
# second and 70 MiB) to hand it the same arguments.
exec "$py" -I -S "$root/lean.py" "$site" "$@"
