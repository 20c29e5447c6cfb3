#!/usr/bin/env bash
# The release job of .github/workflows/build-indexes.yml: writes the
# release notes' index section (markdown, on stdout) for what DIR holds
# after the index jobs ran: the distributions whose index passed (a
# chroma-index-ID.tar.gz in DIR), those that failed (a job that did not
# succeed, or left no tarball), and the model tarball. The job list comes
# on stdin, one "distro-id<TAB>conclusion" a line (the workflow reads it
# from the run's jobs; scripts/ci/test-pipeline.sh feeds a made-up one).
# With OLD, a file holding the release's current notes (release-program.yml
# writes the program's part), prints those notes with the index section
# (between the two markers) replaced, or added at the end.
# Usage: scripts/ci/ci-release-notes.sh DIR [OLD] < jobs.tsv > notes.md
set -euo pipefail
DIR="${1:?usage: ci-release-notes.sh DIR [OLD] < jobs.tsv}"
OLD="${2:-}"
BEGIN='<!-- cmdai-indexes -->'
END='<!-- /cmdai-indexes -->'
passed=() failed=()
while IFS=$'\t' read -r distro conclusion; do
	[ -n "$distro" ] || continue
	if [ "$conclusion" = success ] && [ -f "$DIR/chroma-index-$distro.tar.gz" ]; then
		passed+=("$distro")
	else
		failed+=("$distro ($conclusion)")
	fi
done
shopt -s nullglob
models=("$DIR"/cmdai-model_*.tar.gz)

section() {
	echo "$BEGIN"
	echo "Command indexes per distribution; fetch one with: \`cmdai index download <distro-id>\`."
	echo
	echo "Built: ${passed[*]:-none}"
	if [ ${#failed[@]} -gt 0 ]; then
		echo
		echo "**Failed, not in this build:** $(printf '%s, ' "${failed[@]}" | sed 's/, $//')"
	fi
	echo
	if [ ${#models[@]} -gt 0 ]; then
		echo "Model: \`$(basename "${models[0]}")\` (fp32 and int8; \`cmdai model pull\`)."
	else
		echo "**Model tarball: not built in this run.**"
	fi
	echo "Every file's sha256 is in checksums.txt."
	echo "$END"
}

if [ -z "$OLD" ]; then
	section
	exit 0
fi
# The old notes without their index section, then the new section.
awk -v b="$BEGIN" -v e="$END" '$0 == b { skip = 1 } !skip { print } $0 == e { skip = 0 }' "$OLD" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
echo
section
