# shellcheck shell=bash
# pinned_venv DIR PACKAGE VERSION EXE CHECK... installs PyPI's PACKAGE at
# VERSION into its own venv DIR/venv, unless DIR/stamp already records
# VERSION and DIR/venv/bin/EXE exists (or FORCE=1). CHECK (a command run
# with the venv's bin first on PATH) must pass before the stamp is
# written, so a half-done install is redone next time. PYTHON picks the
# interpreter (python3). Sourced by the install-*.sh of Python tools.
pinned_venv() {
	local dir="$1" pkg="$2" version="$3" exe="$4" start
	shift 4
	local venv="$dir/venv"
	if [ "${FORCE:-0}" = 0 ] && [ -x "$venv/bin/$exe" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$version" ]; then
		echo "$pkg $version already in $venv"
		return 0
	fi
	start=$(date +%s)
	rm -rf "$venv" "$dir/stamp"
	mkdir -p "$dir"
	"${PYTHON:-python3}" -m venv "$venv"
	"$venv/bin/pip" install --quiet --disable-pip-version-check "$pkg==$version"
	PATH="$venv/bin:$PATH" "$@"
	echo "$version" >"$dir/stamp"
	echo "installed $pkg $version into $venv in $(($(date +%s) - start))s"
}
