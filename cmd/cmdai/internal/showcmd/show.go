// Package showcmd is `cmdai show <command>`: one command's card from the
// index (synopsis, its options as spelled with their first sentence,
// its examples), the records MCP's command_docs and GET /v1/docs give.
// It asks the answering layer once (a running serve, else
// answer.OneShot: see cmdutil.ServeOrHere) and prints.
package showcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/readable"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/internal/termstyle"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/render"
	"github.com/cmdai/cmdai/serve/guard"
)

// How much of a card shows unless --all: the options a person reads
// first, not a long page's two hundred.
const (
	DefaultOptions  = 12
	DefaultExamples = 6
)

// Options are the inputs of `cmdai show`.
type Options struct {
	*cmdutil.Factory
	Command string
	// Request narrows the card to what it asks: the options and examples
	// that do it first.
	Request string
	JSON    bool
	All     bool
	Color   string
	// Distro is the distribution whose index is read ("": this
	// machine's); another one is read here, never through serve (which
	// holds one).
	Distro    string
	Strict    bool
	NoServe   bool
	AutoServe cmdutil.AutoServeOptions
	Chroma    cmdutil.ChromaOptions
}

// NewCmdShow is `cmdai show`; runF, when not nil, replaces the run
// function (tests see the parsed options).
func NewCmdShow(f *cmdutil.Factory, runF func(*Options) error) *cli.Command {
	opts := &Options{Factory: f}
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print the command's records as JSON (what GET /v1/docs answers)", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: fmt.Sprintf("show every option and example (by default the first %d options, most used first, and %d examples)", DefaultOptions, DefaultExamples), Destination: &opts.All},
		&cli.StringFlag{Name: "color", Value: termstyle.Auto, Usage: termstyle.FlagUsage, Destination: &opts.Color},
		&cli.StringFlag{Name: "distro", Usage: "read the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.BoolFlag{Name: "strict", Usage: "fail (exit 4) when Chroma cannot be reached, instead of the records from the keyword index on disk", Destination: &opts.Strict},
	}
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.AutoServeFlags(&opts.AutoServe)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "show",
		Usage:     "print one command's card from the index: synopsis, options, examples",
		UsageText: `cmdai show <command> ["REQUEST"] [--all] [--json]`,
		Description: `Prints what the index holds of one command: its page and description,
its SYNOPSIS, its options as the page spells them with their first
sentence (the ones its own examples use first, then those with a short
form; --all: every one), and its examples' command lines. It is what an
assistant reads through MCP's command_docs, and --json is the object
GET /v1/docs answers.

A request after the command, in quotes and of two words or more
("extract into a directory"),
narrows the card to it: the options and examples that do what it asks
come first, best first, as cmdai search chooses them (--json: the
first "chosen" records are they).

A subcommand is named as it is run (git commit) or as its page is
(git-commit). A command the index does not hold is a usage error: find
one by what it does with cmdai search.

EXAMPLES:
   $ cmdai show tar
   $ cmdai show tar "extract into a directory"
   $ cmdai show git commit --all
   $ cmdai show rsync --json | jq '.records[] | select(.kind == "option") | .option'`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdutil.UsageError("name a command: cmdai show tar (to find one by what it does: cmdai search \"extract a tar archive\")")
			}
			args := c.Args().Slice()
			// the last argument is a request when it is several words (a
			// subcommand is one)
			if n := len(args); n >= 2 && len(strings.Fields(args[n-1])) > 1 {
				opts.Request, args = strings.TrimSpace(args[n-1]), args[:n-1]
			}
			if len(args) > 2 {
				return cmdutil.UsageError("unexpected argument %q: cmdai show takes one command, or a subcommand as it is run (git commit), and a request in quotes", args[2])
			}
			name, err := guard.CommandName(strings.Join(args, " "))
			if err != nil {
				return cmdutil.UsageError("%v", err)
			}
			opts.Command = name
			if err := termstyle.CheckMode(opts.Color); err != nil {
				return cmdutil.UsageError("%v", err)
			}
			if err := cmdutil.CheckDistroFlag(opts.Distro); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runShow(c.Context, opts, opts.answerer())
		},
	}
}

// answerer is who reads the records: a running serve, unless --no-serve,
// another Chroma or another distribution is asked for, else this process
// (no model unless a request narrows the card: the records are read by
// their command, not searched).
func (opts *Options) answerer() answer.Answerer {
	here := opts.OneShot(opts.Chroma, opts.Distro, cmdutil.ModelOptions{})
	return opts.ServeOrHere(here.Degraded(), cmdutil.ServeRuledOut(opts.NoServe, opts.Chroma, cmdutil.ModelOptions{}) || opts.Distro != "", opts.AutoServe.For(opts.Distro))
}

// runShow asks a for the command's records, in one call, and prints
// them. A command the index does not hold is a usage error saying how
// to find one.
func runShow(ctx context.Context, opts *Options, a answer.Answerer) error {
	doc, err := a.Docs(ctx, answer.DocsRequest{Command: opts.Command, Request: opts.Request, Strict: opts.Strict})
	if errors.Is(err, search.ErrUnknownCommand) {
		// what it is here decides what to run (issue 46)
		return cmdutil.UsageError("%s is not in the index: %s; find the command for a job with cmdai search \"<what you want to do>\"",
			opts.Command, answer.Unknown(ctx, search.PageName(opts.Command), opts.Getenv("PATH")))
	}
	if err != nil {
		return err
	}
	if doc.Degraded {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n  (start Chroma or fix --chroma-url for the index's records; --strict makes this an error)\n", doc.DegradedReason)
	}
	if opts.JSON {
		return jsonout.Encode(opts.IO.Out, doc)
	}
	w, st, width := opts.IO.Styled(opts.Color, opts.Getenv)
	options, examples, more := DefaultOptions, DefaultExamples, "cmdai show "+opts.Command+" --all"
	if opts.All {
		options, examples = 0, 0
	}
	readable.Printer{W: w, St: st, Width: width}.Card(render.CardOf(doc), options, examples, more)
	return nil
}
