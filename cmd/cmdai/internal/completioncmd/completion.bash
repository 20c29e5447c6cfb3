# bash completion for cmdai                                -*- shell-script -*-
# Written by `cmdai completion bash`. The candidates come from cmdai itself
# (its --generate-bash-completion flag lists what may follow the words
# typed so far), so this script never goes stale when cmdai changes.

_cmdai_complete() {
	local cur words cword
	if declare -F _init_completion >/dev/null 2>&1; then
		# bash-completion keeps "--flag=value" and "a:b" as one word.
		_init_completion -n =: || return
	else
		# Without the bash-completion package (macOS's bash 3.2, say).
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
	fi
	# Ask the cmdai being completed (./bin/cmdai, ~/x/cmdai), not whichever
	# is first on PATH; the words before the cursor, plus a flag being typed.
	local prog=${words[0]/#\~/$HOME}
	local -a typed=("${words[@]:1:cword-1}")
	local w
	for w in "${typed[@]}"; do
		# After "--" every word is an argument: the shell's own
		# candidates (files). cmdai is never asked with a "--" in the
		# words: a cmdai older than this script would run the command.
		[[ $w == -- ]] && return 0
	done
	if [[ $cur == -- ]]; then
		typed+=(-) # every flag; the filter below keeps the long ones
	elif [[ $cur == -* ]]; then
		typed+=("$cur")
	fi
	local candidates line
	candidates=$("$prog" "${typed[@]}" --generate-bash-completion 2>/dev/null) || return 0
	COMPREPLY=()
	while IFS= read -r line; do
		# Flags only where one is typed: after a flag that takes a value
		# cmdai offers its values, and the flags its name begins.
		[[ -z $line || ($cur != -* && $line == -*) ]] && continue
		# The candidates that begin with what is typed, compared as
		# plain strings: never through compgen -W, which expands $(...)
		# and `...` in a candidate (an executable named so on PATH).
		[[ $line == "$cur"* ]] && COMPREPLY+=("$line")
	done <<<"$candidates"
	return 0
}

# -o default: file names when cmdai offers nothing (a path argument).
complete -o bashdefault -o default -F _cmdai_complete cmdai
