// Package scancmd is `cmdai index scan`: the dry run that shows what
// would be indexed (each command's sections, with --stats the totals),
// writing nothing. It parses its flags, makes one call into builder/pages,
// and prints.
package scancmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/termbar"
)

// ScanOptions are the inputs of `cmdai index scan`.
type ScanOptions struct {
	*cmdutil.Factory
	JSON         bool
	Stats        bool
	Commands     []string
	Distro       string
	Lang         string
	HelpFallback bool
	Parallel     int
	BatchMode    bool

	// Seams for tests: nil means $PATH and the system man path.
	PathDirs []string
	ManPath  []string
}

// NewCmdScan is `cmdai index scan`; runF, when not nil, replaces the run
// function (tests see the parsed options).
func NewCmdScan(f *cmdutil.Factory, runF func(*ScanOptions) error) *cli.Command {
	opts := &ScanOptions{Factory: f}
	return &cli.Command{
		Name:      "scan",
		Usage:     "dry run: show what would be indexed from this machine",
		UsageText: "cmdai index scan [--json] [--stats] [--command NAME]... [--distro ID]",
		Description: `Walks $PATH, finds each command's man page the way man-db does, parses it
natively and cuts it into the chunks "cmdai index init" would embed.
Nothing is written. Pages that fail are listed with the reason; the scan
goes on.

With --json, prints one JSON object per line (JSON Lines), each starting
with "schema_version":1: for each
command {"type":"command","command","parent","path","status","source",
"man_page","man_section","alias_of","aliases","description","sections",
"options","examples","chunks":[{"id","text","tokens","metadata"}],"error"},
and with --stats a last {"type":"stats",...} line. status is one of parsed,
alias, no_man_page, failed, denied, not_subcommand. A subcommand's page
(git-commit(1) for "git commit") comes with "parent" set. The format is
documented in README.md.

EXAMPLES:
   $ cmdai index scan --stats
   $ cmdai index scan --command grep --command tar
   $ cmdai index scan --json | jq -c 'select(.status=="failed") | {command, error}'
   $ cmdai index scan --distro ubuntu-24.04 --json --stats > scan.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per command (JSON Lines)", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
			&cli.BoolFlag{Name: "stats", Usage: "print totals and timings at the end", Destination: &opts.Stats},
			&cli.StringSliceFlag{Name: "command", Usage: "only scan `NAME` (repeatable)"},
			&cli.StringFlag{Name: "distro", Usage: "distribution `ID` to label records with (e.g. debian-12); default: detected", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
			&cli.StringFlag{Name: "lang", Usage: "prefer man pages in `LANG` (e.g. de, fr); English otherwise", EnvVars: []string{"CMDAI_LANG"}, Destination: &opts.Lang},
			&cli.BoolFlag{Name: "help-fallback", Usage: "run \"CMD --help\" (sandboxed, with a deny list) for commands without a man page", EnvVars: []string{"CMDAI_HELP_FALLBACK"}, Destination: &opts.HelpFallback},
			&cli.IntFlag{Name: "parallel", Aliases: []string{"j"}, Usage: "run `N` workers in parallel (0: one per CPU)", EnvVars: []string{"CMDAI_PARALLEL"}, Destination: &opts.Parallel},
		},
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.FirstErr(clix.NoArgs(c, "name commands with --command NAME"), cmdutil.CheckDistroFlag(opts.Distro)); err != nil {
				return err
			}
			if opts.Parallel < 0 {
				return cmdutil.UsageError("--parallel must be 0 (one per CPU) or more, not %d", opts.Parallel)
			}
			var err error
			if opts.Commands, err = clix.NoEmptyElements(c, "command"); err != nil {
				return err
			}
			opts.BatchMode = c.Bool("batch-mode")
			if runF != nil {
				return runF(opts)
			}
			return RunScan(c.Context, opts)
		},
	}
}

// RunScan runs the scan opts describe and prints what it finds.
func RunScan(ctx context.Context, opts *ScanOptions) error {
	info, err := cmdutil.ResolveDistro(ctx, opts.Distro, opts.DetectDistro)
	if err != nil {
		return err
	}
	popts := pages.Options{
		PathDirs:     opts.PathDirs,
		ManPath:      opts.ManPath,
		Lang:         opts.Lang,
		Commands:     opts.Commands,
		HelpFallback: opts.HelpFallback,
		Parallel:     opts.Parallel,
		Distro:       info,
	}

	var p scanPrinter
	if opts.JSON {
		p = &jsonScanPrinter{w: opts.IO.Out}
	} else {
		p = &textScanPrinter{out: opts.IO.Out, detailed: len(opts.Commands) > 0, info: info}
	}
	// A bar only for a human at a terminal: JSON streams and CI logs
	// stay clean.
	if !opts.JSON && !opts.BatchMode && opts.IO.ErrTTY {
		bar := termbar.New(opts.IO.ErrOut, opts.IO.ErrWidth)
		defer bar.Done()
		popts.Progress = func(done, total int) {
			bar.Set(done, total, fmt.Sprintf("parsing man pages: %d/%d", done, total), fmt.Sprintf("%d/%d", done, total))
		}
	}
	st, err := pages.Run(ctx, popts, p.Command)
	if err != nil {
		if errors.Is(err, pages.ErrUnknownCommand) {
			return cmdutil.WithCode(cmdutil.ExitUsage, err)
		}
		return err
	}
	if err := p.Done(); err != nil {
		return err
	}
	if opts.Stats {
		return p.Stats(st)
	}
	return nil
}
