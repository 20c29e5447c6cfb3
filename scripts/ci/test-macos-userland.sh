#!/usr/bin/env bash
# The scripts the workflows run on the macOS runners, run here (no Mac) in
# a userland that behaves like a Mac's where it matters to them:
#   - a PATH of symlinks to this machine's tools without sha256sum, nproc
#     and realpath (absent on macOS, realpath before 13), and with shims:
#     stat (BSD: no -c, -f FORMAT is the format), readlink (no -f, as
#     before macOS 12.3), sed (-i takes the next argument as its suffix:
#     a bare -i is refused), wc (pads its numbers), date (no -d), grep (no
#     -P), xargs (no -r), and npm/curl that refuse to download (the
#     up-to-date paths below must not fetch anything);
#   - a lint of those scripts for GNU-only tools and bash-4-only syntax
#     (macOS runs them with /bin/bash 3.2, of which there is no build here).
# Runs: the helpers of scripts/lib/portable.sh against GNU's answers,
# ci-merge-checksums.sh and ci-merge-sha256sums.sh on made-up releases
# (and a tampered one), and the "already there" paths of
# fetch-onnxruntime.sh, build-tokenizers.sh, fetch-model.sh and
# install-chroma.sh on the built tools, through a private CMDAI_TOOLS of
# symlinks (the shared tools are only read). Called by test-pipeline.sh.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
S="$REPO/scripts"
# What the workflows run, directly or through make (build, model, chroma,
# tools, dist), and what they source.
SCRIPTS=(ci/ci-build-index.sh ci/ci-merge-checksums.sh ci/ci-merge-sha256sums.sh ci/ci-prepare-root.sh ci/ci-index-root.sh ci/ci-tools-layout.sh
	install/fetch-onnxruntime.sh install/build-tokenizers.sh install/fetch-model.sh install/install-chroma.sh install/install-test-deps.sh
	install/install.sh lib/portable.sh)

fail() {
	echo "test-macos-userland: $*" >&2
	exit 1
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- 1. lint --------------------------------------------------------------
# Each rule: extended regex <TAB> why. Matched against the script's lines
# without comments. lib/portable.sh is where the GNU/BSD fallbacks live:
# the tool rules skip it, the bash rules do not.
TOOL_RULES="(^|[^[:alnum:]_./-])sha256sum([^[:alnum:]_-]|\$)	no sha256sum on macOS: use sha256_of / sha256_check
(^|[^[:alnum:]_./-])stat[[:space:]]	GNU stat -c and BSD stat -f differ: use file_size
(^|[^[:alnum:]_./-])readlink[[:space:]]+(-[[:alpha:]]*[fem]|--canon)	no readlink -f before macOS 12.3: use realpath_of
(^|[^[:alnum:]_./-])realpath[[:space:]]	no realpath before macOS 13: use realpath_of
(^|[^[:alnum:]_./-])sed[[:space:]](.*[[:space:]])?(-i([[:space:]]|\$)|-[[:alpha:]]+i([[:space:]]|\$)|--in-place|-r([[:space:]]|\$))	sed -i (BSD takes the next argument as the suffix) or -r: use sed_inplace, sed -E
(^|[^[:alnum:]_./-])date[[:space:]](.*[[:space:]])?(-d|--date)	no date -d on macOS
(^|[^[:alnum:]_./-])grep[[:space:]](.*[[:space:]])?(-[[:alpha:]]*P|--perl)	no grep -P on macOS
(^|[^[:alnum:]_./-])xargs[[:space:]](.*[[:space:]])?(-[[:alpha:]]*r([[:space:]]|\$)|--no-run)	xargs -r is GNU
(^|[^[:alnum:]_./-])nproc([^[:alnum:]_-]|\$)	no nproc on macOS: use ncpu
(^|[^[:alnum:]_./-])wc[[:space:]]+-c	wc pads its number on macOS: use file_size
(^|[^[:alnum:]_./-])cp[[:space:]].*--(reflink|parents)	GNU cp only
(^|[^[:alnum:]_./-])mktemp[[:space:]]+(.*[[:space:]])?(-p|-t|--)	mktemp options differ (BSD -t is a prefix): use mktemp -d or a full template
(^|[^[:alnum:]_./-])tar[[:space:]].*--(sort|mtime|owner|group|transform|xform|wildcards|exclude-vcs)	GNU tar only (macOS has bsdtar)
(^|[^[:alnum:]_./-])(tac|numfmt|timeout|md5sum|sha1sum|sha512sum)[[:space:]]	not on macOS
(^|[^[:alnum:]_./-])(base64[[:space:]]+-w|du[[:space:]]+-[[:alpha:]]*b|install[[:space:]]+-[[:alpha:]]*D|ln[[:space:]]+-[[:alpha:]]*r)	GNU-only option
-printf	find -printf is GNU"
BASH_RULES="(declare|local|typeset)[[:space:]]+-[[:alpha:]]*[Ang]	associative arrays, namerefs, declare -g: bash 4+
(^|[^[:alnum:]_])(mapfile|readarray|coproc)([^[:alnum:]_]|\$)	bash 4+
\\\$\\{[[:alpha:]_][[:alnum:]_]*(\\[[^]]*\\])?(,|\\^)	case modification: bash 4+
\\\$\\{[[:alpha:]_][[:alnum:]_]*(\\[[^]]*\\])?@[[:alpha:]]\\}	\${var@op}: bash 4.4+
&>>|\\|&	&>> and |&: bash 4+
\\[\\[[[:space:]]+-v[[:space:]]	[[ -v ]]: bash 4.2+
;;&|;&[[:space:]]*\$	case fall-through: bash 4+
\\\$\\{[[:alpha:]_][[:alnum:]_]*\\[-[0-9]+\\]\\}	negative array index: bash 4.3+
\\\$\\{[[:alpha:]_][[:alnum:]_]*:[^}:]*:-[0-9]	negative substring length: bash 4.2+
shopt[[:space:]]+-s[[:space:]]+(globstar|lastpipe|autocd|inherit_errexit|localvar_inherit|globasciiranges)	bash 4+ option
(^|[^[:alnum:]_])wait[[:space:]]+-[nfp]	wait -n: bash 4.3+
\\\$\\{?(EPOCHSECONDS|EPOCHREALTIME|BASHPID|SRANDOM)	bash 4+/5+ variable
(^|[^\$[:alnum:]_])\\{[[:alpha:]_][[:alnum:]_]*\\}[<>]	{fd}> redirection: bash 4.1+
printf[[:space:]].*%\\([^)]*\\)T	printf %(...)T: bash 4.2+"

# lint_file FILE: prints "FILE:LINE: why: text" for each finding.
lint_file() {
	local f="$1" rules="$TOOL_RULES
$BASH_RULES" re why
	[ "${f##*/}" != portable.sh ] || rules="$BASH_RULES"
	# Drop comments (whole-line and trailing " # ..."); keep line numbers.
	sed -e 's/^[[:space:]]*#.*$//' -e 's/[[:space:]]#[^"'\'']*$//' "$f" >"$work/lint.src"
	while IFS='	' read -r re why; do
		{ grep -nE -- "$re" "$work/lint.src" || true; } | while IFS= read -r hit; do
			printf '%s:%s: %s: %s\n' "$f" "${hit%%:*}" "$why" "${hit#*:}"
		done
	done <<<"$rules"
}
for s in "${SCRIPTS[@]}"; do
	[ -f "$S/$s" ] || fail "no $S/$s (the list of scripts the workflows run is out of date)"
	lint_file "$S/$s" >>"$work/lint.out"
done
if [ -s "$work/lint.out" ]; then
	cat "$work/lint.out" >&2
	fail "GNU-only tools or bash-4-only syntax in the scripts the macOS runners run (see above; scripts/lib/portable.sh has the helpers)"
fi
# The lint must find what it is there for.
# shellcheck disable=SC2016 # the lines are the bad code, unexpanded
printf '%s\n' 'x=$(sha256sum f)' 'stat -c %s f' 'declare -A m' 'echo ${v,,}' 'sed -i -E s/a/b/ f' >"$work/bad.sh"
for want in sha256sum 'stat -c' 'declare -A' 'v,,' 'sed -i'; do
	out="$(lint_file "$work/bad.sh")"
	[[ $out == *"$want"* ]] || fail "the lint misses: $want"
done
echo "macos userland: lint of ${#SCRIPTS[@]} scripts ok"

# --- 2. a Mac-like PATH ---------------------------------------------------
mac="$work/macbin"
mkdir -p "$mac"
IFS=: read -r -a path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
	[ -d "$d" ] || continue
	# First one on PATH wins, as in a lookup; ln refuses the later ones.
	ln -s "$d"/* "$mac/" 2>/dev/null || true
done
real() { command -v "$1" || fail "no $1 on PATH"; }
real_stat="$(real stat)" real_readlink="$(real readlink)" real_sed="$(real sed)" real_wc="$(real wc)"
real_date="$(real date)" real_grep="$(real grep)" real_xargs="$(real xargs)" real_bash="$(real bash)"
command -v shasum >/dev/null || fail "no shasum (perl's, as on macOS): apt-get install perl"
rm -f "$mac"/{sha256sum,nproc,realpath,stat,readlink,sed,wc,date,grep,xargs,npm,curl,wget}
shim() { # name body
	printf '#!%s\n%s\n' "$real_bash" "$2" >"$mac/$1"
	chmod +x "$mac/$1"
}
shim stat "
fmt='' args=()
while [ \$# -gt 0 ]; do
	case \$1 in
	--) shift; break ;;
	-c* | --*) echo \"stat: illegal option -- \${1#-}\" >&2; echo 'usage: stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]' >&2; exit 1 ;;
	-f) fmt=\$2; shift 2 ;;
	-L) args+=(-L); shift ;;
	-*) echo \"stat (macOS shim): \$1 not emulated\" >&2; exit 1 ;;
	*) break ;;
	esac
done
[ -n \"\$fmt\" ] || { echo 'stat (macOS shim): plain stat prints BSD fields: give -f FORMAT' >&2; exit 1; }
[[ \$fmt =~ ^([^%]|%[zmN])*\$ ]] || { echo \"stat (macOS shim): format \$fmt not emulated\" >&2; exit 1; }
fmt=\${fmt//%z/%s}; fmt=\${fmt//%m/%Y}; fmt=\${fmt//%N/%n}
exec $real_stat \${args[@]+\"\${args[@]}\"} -c \"\$fmt\" -- \"\$@\""
shim readlink "
for a in \"\$@\"; do
	case \$a in
	--) break ;;
	-n) ;;
	-*) echo \"readlink: illegal option -- \${a#-}\" >&2; echo 'usage: readlink [-n] [file ...]' >&2; exit 1 ;;
	esac
done
exec $real_readlink \"\$@\""
shim sed "
args=()
while [ \$# -gt 0 ]; do
	case \$1 in
	-i)
		if [ \"\${2-x}\" != '' ]; then
			echo \"sed (macOS): -i takes the next argument ('\${2-}') as the backup suffix: use sed -i.suffix or sed_inplace\" >&2
			exit 1
		fi
		args+=(-i); shift 2; continue ;;
	-[a-zA-Z]*i) echo \"sed (macOS): \$1: -i takes the next argument as the backup suffix\" >&2; exit 1 ;;
	-r | --*) echo \"sed: illegal option -- \${1#-}\" >&2; exit 1 ;;
	-e | -f) args+=(\"\$1\" \"\$2\"); shift 2; continue ;;
	esac
	args+=(\"\$1\"); shift
done
exec $real_sed \"\${args[@]}\""
# BSD wc right-aligns each number in 8 columns: \"     123\", not \"123\".
shim wc "
$real_wc \"\$@\" | awk '{ o = \"\"; for (i = 1; i <= NF; i++) o = o ((\$i ~ /^[0-9]+\$/ && i < 4) ? sprintf(\"%8d\", \$i) : \" \" \$i); print o }'
exit \"\${PIPESTATUS[0]}\""
shim date "
for a in \"\$@\"; do case \$a in -d | -d* | --date*) echo 'date: illegal option -- d' >&2; exit 1 ;; esac; done
exec $real_date \"\$@\""
shim grep "
for a in \"\$@\"; do case \$a in --) break ;; -[a-zA-Z]*P[a-zA-Z]* | --perl*) echo 'grep: invalid option -- P' >&2; exit 2 ;; esac; done
exec $real_grep \"\$@\""
shim xargs "
case \${1-} in -[a-zA-Z]*r[a-zA-Z]* | --no-run*) echo 'xargs (macOS shim): -r is GNU' >&2; exit 1 ;; esac
exec $real_xargs \"\$@\""
for n in npm curl wget; do
	shim "$n" "echo '$n: no downloads in test-macos-userland (an up-to-date check tried to fetch)' >&2; exit 1"
done
export PIP_NO_INDEX=1 npm_config_offline=true
macrun() { env PATH="$mac" "$@"; }

# The shims must be what a Mac has, or nothing below tests anything.
! macrun bash -c 'command -v sha256sum || command -v nproc || command -v realpath' >/dev/null || fail "shim PATH still has sha256sum, nproc or realpath"
macrun bash -c 'command -v shasum >/dev/null' || fail "shim PATH has no shasum"
echo hello >"$work/f"
! macrun stat -c %s "$work/f" 2>/dev/null || fail "the stat shim accepts -c"
[ "$(macrun stat -f %z "$work/f")" = 6 ] || fail "the stat shim: -f %z is not the size"
ln -s f "$work/l"
! macrun readlink -f "$work/l" 2>/dev/null || fail "the readlink shim accepts -f"
! macrun sed -i s/a/b/ "$work/f" 2>/dev/null || fail "the sed shim accepts a bare -i"
[ "$(macrun wc -c <"$work/f")" = "       6" ] || fail "the wc shim does not pad"

# --- 3. the helpers, against GNU's answers ---------------------------------
# shellcheck disable=SC2016 # expanded by the inner bash
helper() { macrun bash -c '. "$0/scripts/lib/portable.sh"; "$@"' "$REPO" "$@"; }
want="$(sha256sum "$work/f" | cut -d' ' -f1)"
[ "$(helper sha256_of "$work/f")" = "$want" ] || fail "sha256_of FILE under shasum"
[ "$(helper sha256_of <"$work/f")" = "$want" ] || fail "sha256_of (stdin) under shasum"
[ "$(helper file_size "$REPO/go.mod")" = "$(stat -c %s "$REPO/go.mod")" ] || fail "file_size under BSD stat"
[ "$(helper ncpu)" = "$(getconf _NPROCESSORS_ONLN)" ] || fail "ncpu without nproc: $(helper ncpu), getconf: $(getconf _NPROCESSORS_ONLN)"
mkdir -p "$work/r/a/b" "$work/r/c"
touch "$work/r/a/b/target"
ln -s ../a/b/target "$work/r/c/rel"  # relative, through ..
ln -s "$work/r/c/rel" "$work/r/abs"  # absolute, to a symlink
ln -s a "$work/r/dirlink"            # a symlinked directory on the way
for p in "$work/r/abs" "$work/r/c/rel" "$work/r/dirlink/b/target" "$work/r/dirlink" "$work/r/a/../c/rel"; do
	[ "$(helper realpath_of "$p")" = "$(readlink -f "$p")" ] || fail "realpath_of $p: $(helper realpath_of "$p"), readlink -f: $(readlink -f "$p")"
done
# shellcheck disable=SC2016 # expanded by the inner bash
(cd "$work/r/c" && [ "$(env PATH="$mac" bash -c '. "$0/scripts/lib/portable.sh"; realpath_of rel' "$REPO")" = "$(readlink -f rel)" ]) || fail "realpath_of of a relative name"
printf 'tiktoken-rs = { git = "x" }\nother = 1\n' >"$work/Cargo.toml"
helper sed_inplace "$work/Cargo.toml" -E 's|^tiktoken-rs[[:space:]]*=.*git.*$|tiktoken-rs = "=0.9.1"|'
[ "$(cat "$work/Cargo.toml")" = "$(printf 'tiktoken-rs = "=0.9.1"\nother = 1')" ] || fail "sed_inplace under BSD sed: $(cat "$work/Cargo.toml")"
[ ! -e "$work/Cargo.toml.portable-bak" ] || fail "sed_inplace left its backup"
echo "macos userland: sha256_of, sha256_check, file_size, ncpu, realpath_of, sed_inplace ok"

# --- 4. the release jobs' merge scripts ------------------------------------
rel="$work/release"
mkdir -p "$rel"
for d in debian-12 macos-15; do
	head -c 3000 /dev/urandom >"$rel/chroma-index-$d.tar.gz"
	(cd "$rel" && sha256sum "chroma-index-$d.tar.gz" >"chroma-index-$d.tar.gz.sha256")
done
macrun "$S/ci/ci-merge-checksums.sh" "$rel" >"$work/out" 2>&1 || { cat "$work/out" >&2; fail "ci-merge-checksums.sh under the macOS PATH"; }
[ "$(cat "$rel/checksums.txt")" = "$(cat "$rel"/chroma-index-debian-12.tar.gz.sha256 "$rel"/chroma-index-macos-15.tar.gz.sha256)" ] ||
	fail "ci-merge-checksums.sh: checksums.txt is not the two .sha256 files, sorted"
echo x >>"$rel/chroma-index-macos-15.tar.gz"
! macrun "$S/ci/ci-merge-checksums.sh" "$rel" >"$work/out" 2>&1 || fail "ci-merge-checksums.sh accepts a tampered tarball under the macOS PATH"

rel="$work/dist"
mkdir -p "$rel"
for p in linux_amd64 darwin_arm64; do
	head -c 2000 /dev/urandom >"$rel/cmdai_1.0.0_$p.tar.gz"
	(cd "$rel" && sha256sum "cmdai_1.0.0_$p.tar.gz" >"SHA256SUMS.$p")
done
head -c 1000 /dev/urandom >"$rel/cmdai-model_1.0.0.tar.gz"
(cd "$rel" && sha256sum cmdai-model_1.0.0.tar.gz >>SHA256SUMS.linux_amd64)
cp -R "$rel" "$work/dist2"
macrun "$S/ci/ci-merge-sha256sums.sh" "$rel" >"$work/out" 2>&1 || { cat "$work/out" >&2; fail "ci-merge-sha256sums.sh under the macOS PATH"; }
[ "$(wc -l <"$rel/SHA256SUMS")" = 3 ] || fail "ci-merge-sha256sums.sh: not 3 sums in SHA256SUMS"
[ ! -e "$rel/SHA256SUMS.linux_amd64" ] || fail "ci-merge-sha256sums.sh left its parts"
echo "$(sha256sum </dev/null | cut -d' ' -f1)  cmdai_1.0.0_linux_amd64.tar.gz" >>"$work/dist2/SHA256SUMS.darwin_arm64"
! macrun "$S/ci/ci-merge-sha256sums.sh" "$work/dist2" >"$work/out" 2>&1 || fail "ci-merge-sha256sums.sh accepts a file with two sums"
grep -q "listed with two different sums" "$work/out" || fail "ci-merge-sha256sums.sh: no reason given for two sums: $(cat "$work/out")"
echo "macos userland: ci-merge-checksums.sh, ci-merge-sha256sums.sh ok (and refuse tampering)"

# --- 5. the tool scripts' "already there" paths ----------------------------
# A private CMDAI_TOOLS of symlinks to the built tools: the scripts may
# write there (fetch-onnxruntime.sh relinks its symlinks) without touching
# the shared ones, and if a check fails they try to rebuild in here and
# fail on the download shims, not replace anything.
pt="$work/tools"
mkdir -p "$pt/lib" "$pt/model" "$pt/chroma"
for f in "$TOOLS"/lib/libonnxruntime.so.1.23.2 "$TOOLS"/lib/libtokenizers.a "$TOOLS"/lib/libtokenizers.a.stamp; do
	[ -e "$f" ] || fail "no $f: run \`make tools\`"
	ln -s "$f" "$pt/lib/"
done
ln -s "$TOOLS/model/all-MiniLM-L6-v2" "$pt/model/"
ln -s "$TOOLS/chroma/venv" "$pt/chroma/venv"
cp "$TOOLS/chroma/stamp" "$pt/chroma/stamp" || fail "no Chroma in $TOOLS/chroma: run \`make chroma\`"

run_uptodate() { # script, what its output must say
	local out
	out="$(CMDAI_TOOLS="$pt" macrun "$S/install/$1" 2>&1)" || { echo "$out" >&2; fail "$1 under the macOS PATH"; }
	[[ "$out" == *"$2"* ]] || fail "$1 under the macOS PATH did not say \"$2\": $out"
	echo "$out"
}
run_uptodate fetch-onnxruntime.sh "onnxruntime 1.23.2 already in $pt/lib"
[ "$(readlink "$pt/lib/libonnxruntime.so")" = libonnxruntime.so.1.23.2 ] || fail "fetch-onnxruntime.sh did not link libonnxruntime.so"
run_uptodate build-tokenizers.sh "already in $pt/lib"
m="$TOOLS/model/all-MiniLM-L6-v2/model.onnx"
run_uptodate fetch-model.sh "all-MiniLM-L6-v2 (up to date): model.onnx $(($(stat -c %s "$m") / 1000000)) MB sha256 $(sha256sum "$m" | cut -c1-12)"
run_uptodate install-chroma.sh "already in $pt/chroma/venv"
echo "macos userland: ok"
