#compdef cmdai
# zsh completion for cmdai, written by `cmdai completion zsh`. Install it
# as _cmdai in a directory of $fpath, or load it in ~/.zshrc with
#   source <(cmdai completion zsh)
# The candidates come from cmdai itself (--generate-bash-completion lists
# what may follow the words typed so far), so it never goes stale.

_cmdai() {
	local cur=${words[CURRENT]}
	# The cmdai being completed, and the words before the cursor.
	local -a typed candidates
	typed=("${(@)words[2,CURRENT-1]}")
	# After "--" every word is an argument: files. cmdai is never asked
	# with a "--" in the words: a cmdai older than this script would run
	# the command.
	if (( ${typed[(Ie)--]} )); then
		_files
		return
	fi
	if [[ $cur == -- ]]; then
		typed+=(-) # every flag; compadd keeps the long ones
	elif [[ $cur == -* ]]; then
		typed+=("$cur")
	fi
	candidates=("${(@f)$(${~words[1]} "${(@)typed}" --generate-bash-completion 2>/dev/null)}")
	# Flags only where one is typed: after a flag that takes a value
	# cmdai offers its values, and the flags its name begins.
	[[ $cur == -* ]] || candidates=(${candidates:#-*})
	if [[ -n ${candidates[1]} ]]; then
		compadd -a candidates
	else
		_files
	fi
}

if [[ ${funcstack[1]} == _cmdai ]]; then
	# Autoloaded from $fpath: this file's body is the completion function.
	_cmdai "$@"
else
	compdef _cmdai cmdai
fi
