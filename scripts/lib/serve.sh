# shellcheck shell=bash
# serve_socket ERRFILE PID: waits (up to 30 s) for the `cmdai serve` whose
# stderr goes to ERRFILE and whose pid is PID to say where it listens,
# and prints that socket. A serve that dies or stays silent: its stderr
# on ours, and exit 1. The bench scripts that start a serve use it.
serve_socket() {
	local err="$1" pid="$2" socket="" i
	for i in $(seq 1500); do
		socket="$(sed -n 's/^cmdai serve: .* on \(.*\) (pid .*/\1/p' "$err")"
		[ -n "$socket" ] && break
		kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; return 1; }
		sleep 0.02
	done
	[ -n "$socket" ] || { echo "serve did not start within 30 s (after $i tries)" >&2; cat "$err" >&2; return 1; }
	echo "$socket"
}
