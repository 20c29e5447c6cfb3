// Package clearcmd is `cmdai index clear`: removing this distribution's
// index (or, with --all, every cmdai index) from Chroma. It parses its
// flags, asks before it removes, makes one call into chroma, and prints.
package clearcmd

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/ship"
)

// ClearOptions are the inputs of `cmdai index clear`.
type ClearOptions struct {
	*cmdutil.Factory
	Confirm bool
	All     bool
	Distro  string
	Chroma  cmdutil.ChromaOptions
}

// NewCmdClear is `cmdai index clear`; runF, when not nil, replaces the
// run function (tests see the parsed options).
func NewCmdClear(f *cmdutil.Factory, runF func(*ClearOptions) error) *cli.Command {
	opts := &ClearOptions{Factory: f}
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "confirm", Aliases: []string{"yes", "y"}, Usage: "do it without asking", Destination: &opts.Confirm},
		&cli.BoolFlag{Name: "all", Usage: "remove every cmdai collection, not only this distribution's", Destination: &opts.All},
		&cli.StringFlag{Name: "distro", Usage: "remove the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
	}
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "clear",
		Usage:     "remove this distribution's index (--all: every cmdai index)",
		UsageText: "cmdai index clear [--confirm] [--distro ID | --all]",
		Description: `Deletes the collection. Asks first on a terminal; elsewhere it needs
--confirm. The embedding cache and the model are kept, so a new init is
quick.

EXAMPLES:
   $ cmdai index clear
   $ cmdai index clear --all --confirm`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			// Nothing it does not understand may pick what is deleted.
			err := clix.FirstErr(
				clix.NoArgs(c, "nothing was deleted (--distro ID clears another distribution's index, --all every cmdai index)"),
				cmdutil.CheckDistroFlag(opts.Distro),
			)
			if err != nil {
				return err
			}
			// Without a terminal to ask on, only --confirm deletes: say so
			// before starting anything.
			if !opts.Confirm && (!opts.IO.OutTTY || opts.IO.In == nil) {
				what := "this distribution's index"
				switch {
				case opts.All:
					what = "every cmdai index"
				case opts.Distro != "":
					what = opts.Distro + "'s index"
				}
				return cmdutil.UsageError("index clear deletes %s: pass --confirm to do it (nothing was deleted)", what)
			}
			// CMDAI_DISTRO in the environment is a default --all overrides;
			// --distro on the command line names one index, not all.
			if opts.All && clix.OnCommandLine(c, "distro") {
				return cmdutil.UsageError("--all clears every cmdai index and --distro %s one of them: give one of the two; nothing was deleted", opts.Distro)
			}
			if runF != nil {
				return runF(opts)
			}
			return runClear(c.Context, opts)
		},
	}
}

func runClear(ctx context.Context, opts *ClearOptions) error {
	// what is cleared is not put back from its local copy
	ctx = chroma.WithoutRestore(ctx)
	info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, opts.Chroma)
	if err != nil {
		return err
	}
	defer conn.Close()
	var names []string
	if opts.All {
		cs, err := conn.ListCollections(ctx, distro.CollectionPrefix)
		if err != nil {
			return err
		}
		for _, c := range cs {
			names = append(names, c.Name)
		}
	} else {
		names = []string{info.CollectionName()}
		if _, err := answer.OpenIndex(ctx, conn.Store, names[0]); cmdutil.ExitCode(err) == cmdutil.ExitNoIndex {
			return cmdutil.WithCode(cmdutil.ExitNoIndex, fmt.Errorf("no index %s on %s: nothing to clear", names[0], conn.URL))
		}
	}
	if len(names) == 0 {
		fmt.Fprintln(opts.IO.Out, "no cmdai indexes: nothing to clear")
		return nil
	}
	if !opts.Confirm {
		if !opts.IO.OutTTY || opts.IO.In == nil {
			return cmdutil.UsageError("this deletes %s on %s: pass --confirm to do it", strings.Join(names, ", "), conn.URL)
		}
		fmt.Fprintf(opts.IO.Out, "Delete %s on %s? [y/N] ", strings.Join(names, ", "), conn.URL)
		line, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(opts.IO.Out, "nothing deleted")
			return nil
		}
	}
	for _, n := range names {
		if err := conn.DeleteCollection(ctx, n); err != nil {
			return err
		}
		// nothing answers from a cleared index (from disk), and status
		// does not take it for one deleted behind cmdai's back
		if dir, err := config.KeywordDir(opts.Getenv); err == nil {
			if err := kwstore.Forget(dir, n); err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "warning: remove the keyword index of %s in %s: %v\n", n, dir, err)
			}
		}
		if dir, err := config.CopyDir(opts.Getenv); err == nil {
			if err := ship.ForgetCopy(dir, n); err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "warning: %v\n", err)
			}
		}
		fmt.Fprintf(opts.IO.Out, "deleted %s\n", n)
	}
	return nil
}
