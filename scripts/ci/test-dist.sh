#!/usr/bin/env bash
# The release test of `make test`: `make dist` twice gives the same
# SHA256SUMS (byte-reproducible archives), `sha256sum -c` accepts it, the
# archive holds the agreed layout, and the program runs from the unpacked
# archive in an empty environment, outside the checkout, finding its ONNX
# Runtime in lib/cmdai. Prints how long each `make dist` took.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() {
	echo "test-dist: $*" >&2
	exit 1
}

for i in 1 2; do
	start=$SECONDS
	make --no-print-directory dist DIST_DIR="$work/dist" >"$work/make-$i.log" 2>&1 || {
		cat "$work/make-$i.log" >&2
		fail "make dist failed"
	}
	echo "test-dist: make dist #$i took $((SECONDS - start)) s"
	cp "$work/dist/SHA256SUMS" "$work/SHA256SUMS.$i"
done
cmp "$work/SHA256SUMS.1" "$work/SHA256SUMS.2" || {
	diff "$work/SHA256SUMS.1" "$work/SHA256SUMS.2" >&2 || true
	fail "two make dist gave different SHA256SUMS: the release is not reproducible"
}
(cd "$work/dist" && sha256sum -c SHA256SUMS) || fail "sha256sum -c SHA256SUMS failed"

archives=("$work"/dist/cmdai_*_linux_amd64.tar.gz)
{ [ ${#archives[@]} -eq 1 ] && [ -f "${archives[0]}" ]; } || fail "want one cmdai_*_linux_amd64.tar.gz, got: ${archives[*]}"
ls "$work"/dist/cmdai-model_all-MiniLM-L6-v2_*.tar.gz >/dev/null || fail "no model tarball"
[ "$(wc -l <"$work/dist/SHA256SUMS")" -eq 2 ] || fail "SHA256SUMS should list the archive and the model tarball"
top="$(basename "${archives[0]}" .tar.gz)"

tar -tzf "${archives[0]}" | LC_ALL=C sort >"$work/list"
for want in bin/cmdai lib/cmdai/libonnxruntime.so lib/cmdai/libonnxruntime.so.1 share/doc/cmdai/LICENSE \
	share/doc/cmdai/THIRD_PARTY_NOTICES share/doc/cmdai/README.md; do
	grep -qx "$top/$want" "$work/list" || fail "the archive lacks $top/$want:$(printf '\n%s' "$(cat "$work/list")")"
done
# README.md's relative links (docs/install.md, BENCHMARKS.md, ...) resolve
# in the archive's share/doc/cmdai/ as in the repository.
links="$(grep -o '](\([^)#:]*\)' "$REPO/README.md" | sed 's/^](//' | sort -u)"
[ -n "$links" ] || fail "found no relative link in README.md"
for link in $links; do
	grep -qx "$top/share/doc/cmdai/$link" "$work/list" || fail "README.md links to $link, which the archive lacks under share/doc/cmdai/"
done
if grep -v "^$top/" "$work/list"; then fail "entries outside $top/"; fi
tar -tzvf "${archives[0]}" | awk '$2 != "0/0" { bad = 1; print } END { exit bad }' || fail "entries not owned by 0/0"
# Read whole first: `tar | grep -q` would end tar with SIGPIPE.
tar -xzOf "${archives[0]}" "$top/share/doc/cmdai/THIRD_PARTY_NOTICES" >"$work/notices"
for want in "ONNX Runtime" "MIT License" "github.com/urfave/cli/v2" "all-MiniLM-L6-v2" "Apache License" "tokenizers"; do
	grep -q "$want" "$work/notices" || fail "THIRD_PARTY_NOTICES does not mention $want"
done

# Unpacked elsewhere, run with nothing from the checkout or this shell.
mkdir -p "$work/unpacked" "$work/home"
tar -xzf "${archives[0]}" -C "$work/unpacked"
exe="$work/unpacked/$top/bin/cmdai"
out="$(cd "$work/home" && env -i HOME="$work/home" PATH=/usr/bin:/bin "$exe" --version)" || fail "bin/cmdai --version failed in the unpacked archive"
echo "test-dist: unpacked bin/cmdai --version: $out"
# The model tarball beside it installs with the unpacked program.
pulled="$(cd "$work/home" && env -i HOME="$work/home" PATH=/usr/bin:/bin "$exe" model pull --base-url "$work/dist" 2>&1)" ||
	fail "model pull from the dist directory failed:$(printf '\n%s' "$pulled")"
echo "test-dist: $pulled"
grep -q "and cmdai-reranker in $work/home/" <<<"$pulled" || fail "model pull did not install the reranker:$(printf '\n%s' "$pulled")"
status="$(cd "$work/home" && { env -i HOME="$work/home" PATH=/usr/bin:/bin "$exe" model status 2>&1 || true; })"
grep -q "variants:  \[fp32 int8\]" <<<"$status" || fail "the pulled model does not verify with both variants:$(printf '\n%s' "$status")"
# Needs the layout part of #19 (ONNX Runtime found in <bin>/../lib/cmdai).
status="$(cd "$work/home" && { env -i HOME="$work/home" PATH=/usr/bin:/bin "$exe" model status 2>&1 || true; })"
grep -q "library in $work/unpacked/$top/lib/cmdai" <<<"$status" ||
	fail "the unpacked cmdai does not find its ONNX Runtime in lib/cmdai:$(printf '\n%s' "$status")"
echo "test-dist: ok ($top)"
