# fish completion for cmdai, written by `cmdai completion fish`. The
# candidates come from cmdai itself (its --generate-bash-completion flag
# lists what may follow the words typed so far, values of flags included),
# as for bash and zsh, so this script never goes stale when cmdai changes.

function __cmdai_complete
	set -l tokens (commandline -opc)
	set -l cur (commandline -ct)
	set -l typed
	if test (count $tokens) -gt 1
		set typed $tokens[2..-1]
	end
	# After "--" every word is an argument: files. cmdai is never asked
	# with a "--" in the words: a cmdai older than this script would run
	# the command.
	if contains -- -- $typed
		__fish_complete_path $cur
		return
	end
	if test "$cur" = --
		set -a typed - # every flag; fish keeps the long ones
	else if string match -q -- '-*' $cur
		set -a typed $cur
	end
	# The cmdai being completed (./bin/cmdai, ~/x/cmdai), not whichever is
	# first on PATH.
	set -l candidates ($tokens[1] $typed --generate-bash-completion 2>/dev/null)
	# Flags only where one is typed: after a flag that takes a value cmdai
	# offers its values, and the flags its name begins.
	if not string match -q -- '-*' $cur
		set candidates (string match -v -- '-*' $candidates)
	end
	if test (count $candidates) -eq 0
		__fish_complete_path $cur # a path argument: files
		return
	end
	printf '%s\n' $candidates
end

complete -c cmdai -e
complete -c cmdai -f -a '(__cmdai_complete)'
