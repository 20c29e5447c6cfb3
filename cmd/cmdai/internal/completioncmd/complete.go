package completioncmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cmdai/cmdai/internal/clix"
	"github.com/urfave/cli/v2"
)

// CompletionMarker is what the completion scripts append to the words
// typed so far to ask cmdai for the candidates at the cursor (the name
// urfave/cli gave it, which the scripts of older releases still send).
const CompletionMarker = "--generate-bash-completion"

// IsCompletionRequest says whether args (without the program's name) are
// a shell's question rather than a command: the marker anywhere in them.
func IsCompletionRequest(args []string) bool {
	return slices.Contains(args, CompletionMarker)
}

// Complete answers a completion request: it prints the candidates that
// may follow the words before the first marker in args (without the
// program's name) and nothing else. It walks app's command tree itself
// rather than letting app.Run see the words: the library stops treating
// the marker as one after "--" (or anywhere but last) and then runs the
// command, so a <TAB> could export an index or start a server. Here no
// Action, Before or After hook can run, whatever the words are; the only
// code called is a command's own BashComplete, which prints names.
func Complete(app *cli.App, args []string, w io.Writer) {
	words := args
	if i := slices.Index(args, CompletionMarker); i >= 0 {
		words = args[:i]
	}
	flags, cmds := app.Flags, app.Commands
	var cmd *cli.Command
	var path []string // the command's names, as in "index download"
	positional := false
	for i := 0; i < len(words); i++ {
		word := words[i]
		if i == len(words)-1 && strings.HasPrefix(word, "-") {
			if printValues(w, word, flags) {
				return
			}
			// The flag being typed ("--" alone included), or a value
			// whose flag begins another's (--mode, --model-dir): the
			// flags that start so and are not given yet. A script drops
			// them when the word at the cursor is not a flag.
			// The flag being typed ("--" alone included): the flags
			// that start so and are not given yet.
			printFlags(w, word, flags, cmd == nil && !app.HideVersion, words[:i])
			if !isFlag(flags, word) {
				return
			}
			// A whole flag that takes no value: the cursor may be
			// after it, on what follows (the scripts keep what fits).
			continue
		}
		switch {
		case word == "--":
			// After "--" every word is an argument (a file, most
			// likely): the shell offers its own candidates.
			return
		case strings.HasPrefix(word, "-") && len(word) > 1:
			if takesValue(flags, word) {
				if i == len(words)-1 {
					return // the cursor is on the flag's value
				}
				i++
			}
		case !positional && findCommand(cmds, word) != nil:
			cmd = findCommand(cmds, word)
			flags, cmds = cmd.Flags, cmd.Subcommands
			path = append(path, cmd.Name)
		case !positional && cmd == nil && (word == "help" || word == "h"):
			// `cmdai help <TAB>`: the commands and the help topics
			for _, c := range app.Commands {
				if !c.Hidden || c.Category == clix.TopicCategory {
					fmt.Fprintln(w, c.Name)
				}
			}
			return
		default:
			positional = true
		}
	}
	if cmd != nil && cmd.BashComplete != nil {
		cmd.BashComplete(cli.NewContext(app, nil, nil))
		return
	}
	if values, ok := argValues[strings.Join(path, " ")]; ok && !positional {
		for _, v := range values() {
			fmt.Fprintln(w, v)
		}
		return
	}
	if positional || len(cmds) == 0 {
		return
	}
	for _, c := range cmds {
		if !c.Hidden {
			for _, n := range c.Names() {
				fmt.Fprintln(w, n)
			}
		}
	}
	// The library adds a help command to the app and to each group
	// when it runs them.
	if cmd == nil && !app.HideHelpCommand || cmd != nil && !cmd.HideHelpCommand {
		fmt.Fprintln(w, "help")
		fmt.Fprintln(w, "h")
	}
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if slices.Contains(c.Names(), name) {
			return c
		}
	}
	return nil
}

// printValues prints the values of the flag word ("--mode", or "--mode="
// and a value begun) when the flag has known values (flagValues), and
// says whether that is all there is to offer. The words before the
// cursor are the same whether the cursor is on the flag's value
// ("--mode <TAB>") or on the flag itself ("--mode<TAB>", which may begin
// --model-dir): when the name begins another flag's, those flags are
// offered too (false), and the scripts keep the flags only when the word
// at the cursor is one.
func printValues(w io.Writer, word string, flags []cli.Flag) bool {
	name, begun, eq := strings.Cut(strings.TrimLeft(word, "-"), "=")
	values, ok := flagValues[name]
	if !ok || !takesValue(flags, "--"+name) {
		return false
	}
	for _, v := range values() {
		switch {
		case !eq:
			fmt.Fprintln(w, v)
		case strings.HasPrefix(v, begun):
			fmt.Fprintln(w, word[:strings.Index(word, "=")+1]+v)
		}
	}
	if eq {
		return true
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name && strings.HasPrefix(n, name) {
				return false
			}
		}
	}
	return true
}

// isFlag says whether word ("--check", "-j") names one of flags.
func isFlag(flags []cli.Flag, word string) bool {
	name := strings.TrimLeft(word, "-")
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// takesValue says whether word ("--name", "-n") is a flag of flags that
// reads the next word as its value ("--name=v" carries its own).
func takesValue(flags []cli.Flag, word string) bool {
	name := strings.TrimLeft(word, "-")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			tv, ok := f.(interface{ TakesValue() bool })
			return ok && tv.TakesValue()
		}
	}
	return false
}

// printFlags prints the names of flags (and --help, --version at the
// top) that start with typed and are not among given, as urfave/cli's
// own completion does: only long names after "--".
func printFlags(w io.Writer, typed string, flags []cli.Flag, version bool, given []string) {
	type flagNames struct {
		names  []string
		hidden bool
	}
	all := []flagNames{{names: []string{"help", "h"}}}
	if version {
		all = append(all, flagNames{names: []string{"version", "v"}})
	}
	for _, f := range flags {
		vf, ok := f.(cli.VisibleFlag)
		all = append(all, flagNames{names: f.Names(), hidden: ok && !vf.IsVisible()})
	}
	prefix := strings.TrimPrefix(strings.TrimPrefix(typed, "-"), "-")
	seen := map[string]bool{}
	for _, f := range all {
		if f.hidden {
			continue
		}
		for _, n := range f.names {
			dash := "--"
			if len([]rune(n)) == 1 {
				if strings.HasPrefix(typed, "--") {
					continue
				}
				dash = "-"
			}
			flag := dash + n
			if !strings.HasPrefix(n, prefix) || n == prefix || slices.Contains(given, flag) || seen[flag] {
				continue
			}
			seen[flag] = true
			fmt.Fprintln(w, flag)
		}
	}
}
