package cmdtest

import (
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// App is a small command tree like cmdai's, for tests of the commands
// that read the tree (completion, the man page): a group with commands
// that have flags and env vars, a hidden command, and the command under
// test; ran is set when one of the tree's own commands runs.
func App(ran *bool, under *cli.Command) *cli.App {
	action := func(*cli.Context) error { *ran = true; return nil }
	return &cli.App{
		Name:    "cmdai",
		Version: "1.2.3",
		Description: `cmdai indexes man pages.

EXAMPLES:
   $ cmdai index init

` + cmdutil.ExitCodesHelp,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "batch-mode", Usage: "CI mode", EnvVars: []string{"CMDAI_BATCH_MODE"}}},
		Commands: []*cli.Command{
			{Name: "index", Usage: "build the index", Subcommands: []*cli.Command{
				{Name: "query", Aliases: []string{"q"}, Usage: "search", Action: action, Flags: []cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: "print JSON", EnvVars: []string{"CMDAI_JSON"}},
					&cli.IntFlag{Name: "top-k", Aliases: []string{"k"}, Usage: "`N` results", EnvVars: []string{"CMDAI_TOP_K"}},
					&cli.StringFlag{Name: "distro", Usage: "distribution `ID`", EnvVars: []string{"CMDAI_DISTRO"}},
				}},
				{Name: "init", Usage: "build it", Action: action, Flags: []cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON", EnvVars: []string{"CMDAI_JSON"}},
				}},
			}},
			{Name: "secret", Hidden: true, Action: action},
			under,
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
}
