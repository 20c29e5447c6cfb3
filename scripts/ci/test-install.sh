#!/usr/bin/env bash
# The new-user test of `make install` (issue #19), run by `make test`:
#  1. make install PREFIX=$tmp/prefix, and a DESTDIR staging that must put
#     every file under $DESTDIR$PREFIX and nothing anywhere else;
#  2. as a new user (env -i, a fresh HOME, PATH = PREFIX/bin + the system,
#     no CMDAI_*, outside the checkout): doctor, an index of three
#     commands, a query, export, import by a second new user, bash loading
#     the completion, `man cmdai` finding and rendering the page;
#  3. without ONNX Runtime, then without the Chroma server: doctor and the
#     command that needs it name what is missing and the fix, with the
#     documented exit code (5 verification failed, 4 Chroma unreachable);
#     then README.md's quick start, verbatim, as a third new user;
#  4. make uninstall leaves nothing under PREFIX, and the user's data.
# Needs what `make test` installs first (tools, model, test-deps) in
# CMDAI_TOOLS (default .tools); builds the relocatable Chroma server there
# once (make chroma-portable).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
start=$(date +%s)
tmp="$(mktemp -d)"
# A new user's first query starts a serve in the background (issue #33):
# none may outlive the test.
stop_serves() {
	for h in "$tmp/home" "$tmp/home2" "$tmp/home3"; do
		if [ -x "$tmp/prefix/bin/cmdai" ] && [ -d "$h" ]; then
			env -i HOME="$h" "$tmp/prefix/bin/cmdai" serve --stop >/dev/null 2>&1 || true
		fi
	done
	rm -rf "$tmp"
}
trap stop_serves EXIT
prefix="$tmp/prefix"
work="$tmp/work" # the new user's working directory: not the checkout
mkdir -p "$work"

fail() {
	echo "test-install: FAIL: $*" >&2
	exit 1
}
step() { echo "test-install: $* ($(($(date +%s) - start))s)"; }

# make_install runs make from the checkout for a user whose XDG
# directories are under home; the caller's CMDAI_* settings must not steer
# it, and Go keeps its own caches (they follow XDG_CACHE_HOME otherwise).
gocache="$(go env GOCACHE)" gomodcache="$(go env GOMODCACHE)" goenv="$(go env GOENV)"
make_install() {
	local home="$1"
	shift
	env -u CMDAI_HOME -u CMDAI_MODEL_DIR -u CMDAI_CONFIG \
		GOCACHE="$gocache" GOMODCACHE="$gomodcache" GOENV="$goenv" \
		XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" XDG_CONFIG_HOME="$home/.config" \
		make -s -C "$REPO" "$@"
}

# as_user HOME CMD... runs CMD as a new user would, from $work; its exit
# code goes to $rc, its output to $out and $err.
as_user() {
	local home="$1"
	shift
	mkdir -p "$home"
	rc=0
	(cd "$work" && env -i HOME="$home" PATH="$prefix/bin:/usr/bin:/bin" "$@") >"$tmp/out" 2>"$tmp/err" || rc=$?
	out="$(cat "$tmp/out")"
	err="$(cat "$tmp/err")"
}

expect() { # code what
	if [ "$rc" != "$1" ]; then
		fail "$2: exit $rc, want $1
stdout: $out
stderr: $err"
	fi
}

contains() { # text needle what
	case "$1" in
	*"$2"*) ;;
	*) fail "$3: no \"$2\" in:
$1" ;;
	esac
}

# --- 1. install, and the DESTDIR staging ---------------------------------
home="$tmp/home"
make_install "$home" install PREFIX="$prefix" >"$tmp/install.log" 2>&1 || fail "make install: $(cat "$tmp/install.log")"
step "make install PREFIX=$prefix"
for f in bin/cmdai lib/cmdai/libonnxruntime.so lib/cmdai/chroma/bin/chroma \
	share/cmdai/models/all-MiniLM-L6-v2/manifest.json share/man/man1/cmdai.1 \
	share/bash-completion/completions/cmdai share/zsh/site-functions/_cmdai \
	share/fish/vendor_completions.d/cmdai.fish; do
	[ -s "$prefix/$f" ] || fail "make install did not install $f"
done
for f in "$TOOLS"/model/all-MiniLM-L6-v2/*; do
	cmp -s "$f" "$prefix/share/cmdai/models/all-MiniLM-L6-v2/$(basename "$f")" || fail "model file $(basename "$f") not installed as built"
done
# One copy of the model: the installed one, not a second in the user's data.
[ -z "$(find "$home" -name manifest.json)" ] || fail "make install put a second copy of the model in the user's data: $(find "$home" -name manifest.json)"
contains "$(cat "$tmp/install.log")" "installed under $prefix: bin/cmdai " "make install's account of what it wrote"
# Both launchers run one program: the installed one, the file cmdai embeds.
cmp -s "$REPO/chroma/launcher/lean.py" "$prefix/lib/cmdai/chroma/lean.py" ||
	fail "lib/cmdai/chroma/lean.py is not chroma/launcher/lean.py, which cmdai runs for pip's entry point"
shellcheck "$REPO/scripts/install/install.sh" "$REPO/scripts/install/chroma-launcher.sh" "$REPO/scripts/ci/test-install.sh" \
	"$prefix/lib/cmdai/chroma/bin/chroma" || fail "shellcheck: the install scripts"
shellcheck -s bash "$prefix/share/bash-completion/completions/cmdai" || fail "shellcheck: the bash completion"
for doc in LICENSE THIRD_PARTY_NOTICES; do
	if [ -f "$REPO/$doc" ]; then
		cmp -s "$REPO/$doc" "$prefix/share/doc/cmdai/$doc" || fail "$doc not installed in share/doc/cmdai"
	fi
done

stage="$tmp/stage"
opt_existed=0
[ -e /opt/cmdai ] && opt_existed=1
make_install "$tmp/packager" install DESTDIR="$stage" PREFIX=/opt/cmdai >"$tmp/install.log" 2>&1 || fail "make install DESTDIR: $(cat "$tmp/install.log")"
stray="$(find "$stage" -mindepth 1 -not -path "$stage/opt" -not -path "$stage/opt/cmdai" -not -path "$stage/opt/cmdai/*")"
[ -z "$stray" ] || fail "DESTDIR install wrote outside DESTDIR/PREFIX: $stray"
[ "$(find "$stage/opt/cmdai" -type f | wc -l)" -eq "$(find "$prefix" -type f | wc -l)" ] || fail "DESTDIR install holds another set of files than the PREFIX one"
# (Go's telemetry may write under XDG_CONFIG_HOME: not ours.)
[ -z "$(find "$tmp/packager" -path '*cmdai*')" ] || fail "DESTDIR install wrote into the user's directories: $(find "$tmp/packager" -path '*cmdai*')"
[ "$opt_existed" = 1 ] || [ ! -e /opt/cmdai ] || fail "DESTDIR install wrote /opt/cmdai itself"
page="$(cat "$stage/opt/cmdai/share/man/man1/cmdai.1")"
contains "$page" "/opt/cmdai/lib/cmdai/libonnxruntime.so" "the staged man page's FILES"
case "$page" in *"$stage"*) fail "the staged man page names DESTDIR" ;; esac
# The staged Chroma runs from where it was staged, not from /opt/cmdai: it
# is relocatable. A heartbeat proves the server, not just its --help.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
env -i HOME="$tmp/chroma-home" PATH=/usr/bin:/bin "$stage/opt/cmdai/lib/cmdai/chroma/bin/chroma" run \
	--path "$tmp/chroma-data" --host 127.0.0.1 --port "$port" >"$tmp/chroma.log" 2>&1 &
chroma_pid=$!
beat=""
for _ in $(seq 1 120); do
	beat="$(curl -sf "http://127.0.0.1:$port/api/v2/heartbeat" 2>/dev/null)" && break
	kill -0 "$chroma_pid" 2>/dev/null || break
	sleep 0.5
done
kill "$chroma_pid" 2>/dev/null || true
wait "$chroma_pid" 2>/dev/null || true
contains "$beat" "heartbeat" "the staged Chroma server's heartbeat (log: $(cat "$tmp/chroma.log"))"
rm -rf "$stage" "$tmp/chroma-data"
step "make install DESTDIR=$stage PREFIX=/opt/cmdai, staged Chroma answered"

# --- 2. a new user --------------------------------------------------------
as_user "$home" cmdai doctor
expect 0 "cmdai doctor after make install"
as_user "$home" cmdai model status --json
expect 0 "cmdai model status after make install"
contains "$out" "\"dir\": \"$prefix/share/cmdai/models/all-MiniLM-L6-v2\"" "model status of a new user (the installed model)"
contains "$out" '"verified": true' "model status of a new user"
as_user "$home" cmdai index init --batch-mode --command ls --command grep --command tar
expect 0 "cmdai index init"
contains "$out" '"commands_count":3' "index init's summary"
as_user "$home" cmdai index query "list directory contents" -k 3 --json
expect 0 "cmdai index query"
first="$(python3 -c 'import json, sys; print(json.load(sys.stdin)["commands"][0]["command"])' <<<"$out")"
[ "$first" = ls ] || fail "query \"list directory contents\" answered $first first, not ls"
# ... and started a serve in the background, which status names
as_user "$home" cmdai index status
expect 0 "cmdai index status after the first query"
contains "$out" "started in the background" "status after the first query (a serve in the background)"
mkdir -p "$tmp/ship"
as_user "$home" cmdai index export "$tmp/ship/"
expect 0 "cmdai index export"
tarball="$(find "$tmp/ship" -name '*.tar.gz')"
if [ -z "$tarball" ] || [ ! -s "$tarball.sha256" ]; then
	fail "index export wrote no tarball and checksum in $tmp/ship: $(ls "$tmp/ship")"
fi
# A second new user installs the model and the index from files.
home2="$tmp/home2"
as_user "$home2" cmdai model import "$prefix/share/cmdai/models/all-MiniLM-L6-v2"
expect 0 "cmdai model import (second user)"
# An export carries no signature: refused unless the user says they trust it,
# then marked unsigned until rebuilt.
as_user "$home2" cmdai index import "$tarball"
expect 5 "cmdai index import of an unsigned export (second user)"
contains "$err" "--allow-unsigned" "the unsigned import's refusal"
as_user "$home2" cmdai index import "$tarball" --allow-unsigned
expect 0 "cmdai index import --allow-unsigned (second user)"
as_user "$home2" cmdai index status
contains "$out" "UNSIGNED" "index status after an unsigned import"
as_user "$home2" cmdai index query "list directory contents" -k 3
expect 0 "cmdai index query after import"
contains "$out" "ls" "query after import"
step "doctor, init, query, export, import as new users"

# bash-completion finds the script by itself under ~/.local/share (here:
# BASH_COMPLETION_USER_DIR, as PREFIX is not ~/.local), and the script
# asks cmdai for `index`'s subcommands.
# shellcheck disable=SC2016 # expanded by that bash
as_user "$home" BASH_COMPLETION_USER_DIR="$prefix/share/bash-completion" bash --norc --noprofile -c '
	source /usr/share/bash-completion/bash_completion
	_completion_loader cmdai
	complete -p cmdai
	COMP_WORDS=(cmdai index ""); COMP_CWORD=2; COMP_LINE="cmdai index "; COMP_POINT=${#COMP_LINE}
	_cmdai_complete cmdai "" index
	printf "%s\n" "${COMPREPLY[@]}"'
expect 0 "bash loading the completion"
contains "$out" "-F _cmdai_complete" "bash's completion for cmdai"
for sub in init query export import; do
	contains "$out" "$sub" "completing \"cmdai index <TAB>\""
done
# man finds the page from PATH (PREFIX/bin -> PREFIX/share/man) and renders it.
as_user "$home" man -w cmdai
expect 0 "man -w cmdai"
[ "$out" = "$prefix/share/man/man1/cmdai.1" ] || fail "man -w cmdai found $out"
as_user "$home" MANWIDTH=80 man -l "$prefix/share/man/man1/cmdai.1"
expect 0 "man -l cmdai.1"
rendered="$(tr -s ' ' <<<"$out")" # justified lines have runs of spaces
as_user "$home" cmdai --generate-bash-completion
for cmd in $out; do
	case "$cmd" in help | h) continue ;; esac
	contains "$rendered" "$cmd" "the man page's commands"
done
contains "$rendered" "EXIT CODES" "the man page"
contains "$rendered" "Chroma unreachable" "the man page's exit codes"
step "completion loads in bash, man cmdai renders"

# --- 3. a missing part: named, with the fix and the documented exit code ---
# with no serve holding a loaded model: the one the first query started
# would answer without ONNX Runtime
for h in "$home" "$home2"; do
	as_user "$h" cmdai serve --stop
	expect 0 "cmdai serve --stop"
done
contains "$out" "stopped cmdai serve (pid " "serve --stop of the second user's serve"
mv "$prefix/lib/cmdai/libonnxruntime.so" "$tmp/libonnxruntime.so"
as_user "$home" cmdai doctor
[ "$rc" != 0 ] || fail "cmdai doctor passed without ONNX Runtime: $out"
contains "$out$err" "ONNX Runtime" "doctor without ONNX Runtime"
case "$out$err" in
*"make install"* | *CMDAI_ORT_LIB_DIR*) ;;
*) fail "doctor without ONNX Runtime names no fix (make install, CMDAI_ORT_LIB_DIR): $out$err" ;;
esac
as_user "$home" cmdai index query "list directory contents"
expect 5 "cmdai index query without ONNX Runtime"
contains "$err" "ONNX Runtime" "query without ONNX Runtime"
contains "$err" "cmdai doctor" "query without ONNX Runtime"
mv "$tmp/libonnxruntime.so" "$prefix/lib/cmdai/libonnxruntime.so"

mv "$prefix/lib/cmdai/chroma" "$tmp/chroma"
as_user "$home" cmdai doctor
[ "$rc" != 0 ] || fail "cmdai doctor passed without the Chroma server: $out"
contains "$out$err" "chromadb==" "doctor's fix for Chroma"
as_user "$home" cmdai index query "list directory contents" --strict
expect 4 "cmdai index query --strict without the Chroma server"
contains "$err" "chroma" "query without Chroma"
contains "$err" "cmdai doctor" "query without Chroma"
mv "$tmp/chroma" "$prefix/lib/cmdai/chroma"
as_user "$home" cmdai doctor
expect 0 "cmdai doctor with everything back"
step "a missing ONNX Runtime (exit 5) and Chroma (exit 4) are named"

# README's quick start, as a third new user would type it after `make
# install` (done above): every cmdai line of the block between the
# <!-- quickstart --> markers, verbatim (a whole-machine init).
home3="$tmp/home3"
quickstart="$(sed -n '/^<!-- quickstart -->$/,/^<!-- \/quickstart -->$/p' "$REPO/README.md" | grep '^cmdai ')" ||
	fail "README.md has no cmdai line between <!-- quickstart --> markers"
[ "$(grep -c '^make install' <<<"$(sed -n '/^<!-- quickstart -->$/,/^<!-- \/quickstart -->$/p' "$REPO/README.md")")" = 1 ] ||
	fail "README's quick start does not begin with make install, which this test runs above"
first=""
while IFS= read -r line; do
	case "$line" in
	"cmdai search "*)
		# the first answer after init is as fast as the tenth (issue 46):
		# init built what answering reads and left a warm serve
		[ -n "$first" ] || {
			as_user "$home3" cmdai index status
			contains "$out" "started in the background" "the serve the quick start's init starts, before the first search"
			ls "$home3"/.local/share/cmdai/keywords/*.checked.bm25 "$home3"/.local/share/cmdai/keywords/*-records-*.vec >/dev/null 2>&1 ||
				fail "the quick start's init left no keyword index or vectors: $(ls -la "$home3"/.local/share/cmdai/keywords 2>&1)"
		}
		;;
	esac
	s=$(date +%s%N)
	as_user "$home3" bash -c "$line"
	expect 0 "README quick start: $line"
	case "$line" in "cmdai search "*) [ -n "$first" ] || first="$((($(date +%s%N) - s) / 1000000)) ms" ;; esac
done <<<"$quickstart"
last="$(tail -n 1 <<<"$quickstart")"
case "$last" in
"cmdai search "*) contains "$out" "find" "README quick start's answer to: $last" ;;
esac
as_user "$home3" cmdai serve --stop
step "README's quick start as a new user ($(wc -l <<<"$quickstart") cmdai lines; the first search answered in ${first:-no search})"

# --- 4. uninstall -----------------------------------------------------------
make_install "$home" uninstall PREFIX="$prefix" >"$tmp/install.log" 2>&1 || fail "make uninstall: $(cat "$tmp/install.log")"
left="$(find "$prefix" -mindepth 1 -not -type d -o -name '*cmdai*')"
[ -z "$left" ] || fail "make uninstall left: $left"
[ -n "$(find "$home/.local/share/cmdai/chroma" -name chroma.sqlite3)" ] || fail "make uninstall removed the user's index"
contains "$(cat "$tmp/install.log")" "your index stays" "make uninstall's last line"
step "make uninstall left nothing under PREFIX, and the user's index"
echo "test-install: ok in $(($(date +%s) - start))s"
