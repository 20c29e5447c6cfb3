// Package docscmd is `cmdai index docs` (today `index docs new`): writing
// a commented template of your own docs and hints for a command, for the
// next `cmdai index refresh` to index. It parses its flags, makes one call
// into customdocs, and prints.
package docscmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/safefile"
)

// DocsNewOptions are the inputs of `cmdai index docs new`.
type DocsNewOptions struct {
	*cmdutil.Factory
	Name  string
	Dir   string
	Force bool
}

// NewCmdDocs is `cmdai index docs`; runF, when not nil, replaces the run
// function of `docs new` (tests see the parsed options).
func NewCmdDocs(f *cmdutil.Factory, runF func(*DocsNewOptions) error) *cli.Command {
	opts := &DocsNewOptions{Factory: f}
	return &cli.Command{
		Name:  "docs",
		Usage: "write your own command docs and hints for the index",
		Description: `Command docs (Markdown with YAML frontmatter: command, aliases, keywords,
categories, priority, version; **User**: / **Command**: example pairs) teach
the index about your own tools. They live in ~/.config/cmdai/commands/
(hints, with description and relevant_for, in ~/.config/cmdai/hints/) and
are indexed by ` + "`index init`" + ` and ` + "`index refresh`" + ` (--docs DIR adds a directory).

EXAMPLES:
   $ cmdai index docs new kubectl
   $ $EDITOR ~/.config/cmdai/commands/kubectl.md && cmdai index refresh`,
		Subcommands: []*cli.Command{{
			Name:      "new",
			Usage:     "write a commented template for command NAME",
			UsageText: "cmdai index docs new NAME [--dir DIR] [--force]",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "dir", Usage: "write into `DIR` (default: ~/.config/cmdai/commands)", Destination: &opts.Dir},
				&cli.BoolFlag{Name: "force", Usage: "overwrite an existing file", Destination: &opts.Force},
			},
			OnUsageError: clix.OnUsageError,
			Action: func(c *cli.Context) error {
				var err error
				if opts.Name, err = clix.OneArg(c, "say which command the doc is for: cmdai index docs new NAME"); err != nil {
					return err
				}
				if !customdocs.ValidName(opts.Name) {
					return cmdutil.UsageError("%q is not a command name", opts.Name)
				}
				if runF != nil {
					return runF(opts)
				}
				return runDocsNew(opts)
			},
		}},
		OnUsageError: clix.OnUsageError,
		Action:       clix.GroupAction,
	}
}

// runDocsNew writes the template of a doc for opts.Name.
func runDocsNew(opts *DocsNewOptions) error {
	dir, name := opts.Dir, opts.Name
	if dir == "" {
		d, err := config.CommandsDir(opts.Getenv)
		if err != nil {
			return err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, name+".md")
	if _, err := os.Lstat(path); err == nil && !opts.Force {
		return cmdutil.UsageError("%s exists: edit it, or pass --force to start over", path)
	}
	// Atomic: with --force the old doc stays whole until the template
	// replaces it.
	if err := safefile.WriteBytes(path, []byte(customdocs.Template(name)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s: edit it, then run `cmdai index refresh`\n", path)
	return nil
}
