#!/usr/bin/env bash
# Lays out what a Linux index job of build-indexes.yml runs, from `make
# dist`'s archives: OUT/opt is cmdai's release layout (bin/cmdai,
# lib/cmdai/libonnxruntime.so*, share/doc/cmdai, and the model tarball
# unpacked in share/cmdai/models: all-MiniLM-L6-v2 and cmdai-reranker),
# mounted at /opt/cmdai in the distribution's container by
# scripts/ci/ci-index-root.sh. The workflow's tools job builds it once per
# CPU architecture; the index jobs unpack it instead of building Go, Rust,
# ONNX Runtime and the model again.
#
# It refuses a binary or library that needs a newer glibc than MAX (the
# oldest of the matrix: AlmaLinux 9 has 2.34, Ubuntu 22.04 2.35) or a newer
# libstdc++ than MAXCXX (AlmaLinux 9's GCC 11: GLIBCXX_3.4.29), since the
# same files run in every distribution's container.
#
# Usage: ci-tools-layout.sh --program cmdai_*_linux_ARCH.tar.gz [--model cmdai-model_*.tar.gz]
#                           --out DIR [--max-glibc 2.34] [--max-glibcxx 3.4.29]
# Without --model it only lays out and checks the program (the tools job).
set -euo pipefail
program="" model="" out="" max=2.34 maxcxx=3.4.29
while [ $# -gt 0 ]; do
	case "$1" in
	--program) program="${2:?}"; shift 2 ;;
	--model) model="${2:?}"; shift 2 ;;
	--out) out="${2:?}"; shift 2 ;;
	--max-glibc) max="${2:?}"; shift 2 ;;
	--max-glibcxx) maxcxx="${2:?}"; shift 2 ;;
	*) echo "ci-tools-layout: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
done
fail() { echo "ci-tools-layout: FAIL: $*" >&2; exit 1; }
if [ ! -f "$program" ] || [ -z "$out" ]; then fail "--program and --out are needed"; fi
if [ -n "$model" ] && [ ! -f "$model" ]; then fail "no model tarball $model"; fi

rm -rf "$out/opt"
mkdir -p "$out/opt/share/cmdai/models"
# The program archive holds one directory, cmdai_<version>_<os>_<arch>/.
tar -xzf "$program" -C "$out/opt" --strip-components=1
want=(bin/cmdai lib/cmdai/libonnxruntime.so)
if [ -n "$model" ]; then
	tar -xzf "$model" -C "$out/opt/share/cmdai/models"
	want+=(share/cmdai/models/all-MiniLM-L6-v2/manifest.json share/cmdai/models/cmdai-reranker/manifest.json)
fi
for f in "${want[@]}"; do
	[ -e "$out/opt/$f" ] || fail "no $f in the layout made from $program${model:+ and $model}"
done

# The newest symbol versions of glibc (GLIBC_) and libstdc++ (GLIBCXX_)
# that the binary and the library need, against the oldest in the matrix.
objdump -T "$out/opt/bin/cmdai" "$out/opt/lib/cmdai/libonnxruntime.so" >"$out/symbols.txt"
newest_of() { grep -o "$1[0-9][0-9.]*" "$out/symbols.txt" | sed "s/^$1//" | sort -uV | tail -1; }
check() { # PREFIX MAX WHAT
	local need newest
	need="$(newest_of "$1")"
	[ -n "$need" ] || fail "objdump found no $1 symbol versions in bin/cmdai and libonnxruntime"
	newest="$(printf '%s\n%s\n' "$need" "$2" | sort -V | tail -1)"
	if [ "$newest" != "$2" ]; then
		grep "$1$need" "$out/symbols.txt" >&2 || true
		fail "bin/cmdai or libonnxruntime needs $3 $need, newer than $2 (the oldest in the matrix): build it on an older system"
	fi
	printf '%s' "$need"
}
glibc="$(check GLIBC_ "$max" glibc)"
cxx="$(check GLIBCXX_ "$maxcxx" libstdc++)"
rm -f "$out/symbols.txt"
echo "ci-tools-layout: $out/opt: cmdai's release layout${model:+ with the model}; needs glibc $glibc (at most $max), libstdc++ $cxx (at most $maxcxx)"
