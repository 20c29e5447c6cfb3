// Package completioncmd is `cmdai completion`: the shell completion
// scripts (bash, zsh, fish), and the answers to the completion requests
// the scripts send back to the binary (see Complete). Both are made from
// the command tree the binary runs, so an installed script always matches
// the installed binary.
package completioncmd

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
)

// The scripts ask cmdai for its candidates at each <TAB> (urfave/cli's
// --generate-bash-completion marker, which cmdai answers itself:
// Complete). fish's did not: the library's static script named each
// command by its last word (index export and model export shared their
// flags, and 8 lines came twice) and offered no values.
var (
	//go:embed completion.bash
	bashScript string
	//go:embed completion.zsh
	zshScript string
	//go:embed completion.fish
	fishScript string
)

// Shells are the shells `cmdai completion` writes scripts for.
var Shells = []string{"bash", "zsh", "fish"}

// CompletionOptions are the inputs of `cmdai completion`.
type CompletionOptions struct {
	*cmdutil.Factory
	Shell string
	// App is the command tree the binary completes.
	App *cli.App
}

// NewCmdCompletion is `cmdai completion SHELL`; runF, when not nil,
// replaces the run function (tests see the parsed options).
func NewCmdCompletion(f *cmdutil.Factory, runF func(*CompletionOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		UsageText: "cmdai completion bash|zsh|fish",
		Description: `Prints a script that completes cmdai's commands and flags. ` + "`make install`" + ` puts
all three where the shells look (PREFIX/share/bash-completion/completions/cmdai,
PREFIX/share/zsh/site-functions/_cmdai,
PREFIX/share/fish/vendor_completions.d/cmdai.fish); to load one by hand:

EXAMPLES:
   $ source <(cmdai completion bash)                      # in ~/.bashrc
   $ source <(cmdai completion zsh)                       # in ~/.zshrc, after compinit
   $ cmdai completion fish > ~/.config/fish/completions/cmdai.fish`,
		OnUsageError: clix.OnUsageError,
		BashComplete: func(c *cli.Context) {
			for _, s := range Shells {
				fmt.Fprintln(c.App.Writer, s)
			}
		},
		Action: func(c *cli.Context) error {
			shell, err := clix.OneArg(c, "name the shell: `cmdai completion bash`, `zsh` or `fish`")
			if err != nil {
				return err
			}
			opts := &CompletionOptions{Factory: f, Shell: shell, App: c.App}
			if runF != nil {
				return runF(opts)
			}
			return runCompletion(opts)
		},
	}
}

// runCompletion prints the script of opts.Shell.
func runCompletion(opts *CompletionOptions) error {
	script, err := CompletionScript(opts.App, opts.Shell)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(opts.IO.Out, script)
	return err
}

// CompletionScript is the completion script of app for shell (the same
// for any app: the scripts ask the binary).
func CompletionScript(app *cli.App, shell string) (string, error) {
	switch shell {
	case "bash":
		return bashScript, nil
	case "zsh":
		return zshScript, nil
	case "fish":
		return fishScript, nil
	}
	return "", cmdutil.UsageError("no completion for shell %q: use %s", shell, strings.Join(Shells, ", "))
}
