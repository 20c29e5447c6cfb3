// Package explaincmd is `cmdai explain`: a shell command line checked,
// word by word, against the option records of the index (never a man
// page, never the model). It reads the line, makes one call on the
// answering layer (a running serve when one holds the index, else
// answer.OneShot: see cmdutil.ServeOrHere), and prints.
package explaincmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/internal/termstyle"
)

// Options are the inputs of `cmdai explain`.
type Options struct {
	*cmdutil.Factory
	Line  string
	JSON  bool
	Check bool
	// Distro is the distribution whose index judges the line ("": this
	// machine's, which alone lets $PATH tell an installed command the
	// index lacks from one not installed).
	Distro string
	Strict bool
	// Color is --color: termstyle's auto, always or never.
	Color     string
	NoServe   bool
	AutoServe cmdutil.AutoServeOptions
	Chroma    cmdutil.ChromaOptions
}

// NewCmdExplain is `cmdai explain`; runF, when not nil, replaces the run
// function (tests see the parsed options).
func NewCmdExplain(f *cmdutil.Factory, runF func(*Options) error) *cli.Command {
	opts := &Options{Factory: f}
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print the whole result as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "check", Usage: "exit 7 when the line uses an option its command does not document, or a command that is not installed", Destination: &opts.Check},
		&cli.StringFlag{Name: "distro", Usage: "judge by the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.BoolFlag{Name: "strict", Usage: "fail (exit 4) when Chroma cannot be reached, instead of judging by the keyword index on disk", Destination: &opts.Strict},
		&cli.StringFlag{Name: "color", Value: termstyle.Auto, Usage: termstyle.FlagUsage, Destination: &opts.Color},
	}
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.AutoServeFlags(&opts.AutoServe)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "explain",
		Usage:     "check a shell command line against the installed commands' documented options",
		UsageText: `cmdai explain 'LINE' [--check] [--json]    (or - to read the line from stdin)`,
		Description: `Parses the line as the shell does (pipelines, lists, subshells, command
substitutions; through sudo, env, xargs, time, nice, timeout; into
subcommands whose pages exist, as git commit) and, for each command,
prints its summary and a verdict for each word:
   known           a documented option, with its text from the installed page
   unknown option  the installed command does not document it
   operand         not an option: a file, a pattern, an option's value
   undocumented    its command has no option records to judge it by
and for a command: known, "not installed" or "undocumented" (on $PATH but
not in the index; only told for this machine's own index).

It reads the index alone (the commands' records in Chroma), never a man
page, and needs no model. When "cmdai serve" runs it answers (warm, a few
milliseconds); else cmdai opens the index itself. When Chroma cannot be
reached, the keyword index on disk judges instead ("degraded", a warning
on stderr); --strict makes that exit 4.

--check exits 7 when any option is unknown or any command is not
installed, after printing the result: for scripts and agents that check a
command before they run or propose it.

EXAMPLES:
   $ cmdai explain 'tar -xzvf a.tgz -C /tmp | grep -c foo'
   $ cmdai explain --check 'find . -mtime -1 -print0 | xargs -0 ls -l'
   $ printf '%s\n' "$line" | cmdai explain - --json`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			arg, err := clix.OneArg(c, `give the line to check, quoted as one argument: cmdai explain 'tar -xzf a.tgz' (or - to read it from stdin)`)
			if err != nil {
				return err
			}
			if err := cmdutil.CheckDistroFlag(opts.Distro); err != nil {
				return err
			}
			if err := termstyle.CheckMode(opts.Color); err != nil {
				return cmdutil.UsageError("%v", err)
			}
			if opts.Line, err = readLine(arg, opts.IO.In); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runExplain(c.Context, opts, opts.answerer())
		},
	}
}

// readLine is the line to check: arg itself, or stdin when arg is "-"
// (without its final newline): an agent passes quoting-heavy lines that
// way. Whether it is a line at all (blank, too long, binary) is
// explain's to say, before anything is started.
func readLine(arg string, stdin io.Reader) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	if stdin == nil {
		return "", cmdutil.UsageError("no stdin to read the line from: give the line as an argument")
	}
	// one byte past the limit, for explain to see it is over
	b, err := io.ReadAll(io.LimitReader(stdin, explain.MaxLine+3))
	if err != nil {
		return "", fmt.Errorf("read the line from stdin: %w", err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
}

// Result is what `explain --json` prints (serve answers the same).
type Result = answer.ExplainResult

// runExplain asks a to judge the line, in one call, and prints the
// result; --check makes a line that does not check exit 7.
func runExplain(ctx context.Context, opts *Options, a answer.Answerer) error {
	res, err := a.Explain(ctx, opts.request())
	if err != nil {
		return err
	}
	if opts.Distro == "" {
		// a typo of an installed name is told which (issue 46)
		answer.SuggestInstalled(&res, opts.Getenv("PATH"))
	}
	if err := printResult(opts, res); err != nil {
		return err
	}
	if opts.Check && !res.OK {
		return cmdutil.WithCode(cmdutil.ExitUnknownOption, fmt.Errorf("the line does not check: %s", tally(res.Result)))
	}
	return nil
}

// request is the line to judge, as serve and the MCP tool take it too.
func (opts *Options) request() answer.ExplainRequest {
	return answer.ExplainRequest{Line: opts.Line, Distro: opts.Distro, Strict: opts.Strict, Path: opts.Getenv("PATH")}
}

// answerer is who judges the line: a running serve, unless --no-serve or
// another Chroma (--chroma-url, --chroma-data) is asked for, else this
// process (no model: explain reads the option records alone).
func (opts *Options) answerer() answer.Answerer {
	here := opts.OneShot(opts.Chroma, opts.Distro, cmdutil.ModelOptions{})
	return opts.ServeOrHere(here.Degraded(), cmdutil.ServeRuledOut(opts.NoServe, opts.Chroma, cmdutil.ModelOptions{}), opts.AutoServe.For(opts.Distro))
}

// printResult prints a result as text or JSON, and a degraded one's
// warning on stderr (one-shot or from serve alike).
func printResult(opts *Options, res Result) error {
	if res.Degraded {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n  (start Chroma or fix --chroma-url to judge by the index; --strict makes this an error)\n", res.DegradedReason)
	}
	if opts.JSON {
		return jsonout.Encode(opts.IO.Out, res)
	}
	w, st, width := opts.IO.Styled(opts.Color, opts.Getenv)
	_, err := io.WriteString(w, Styled(res.Result, st, width))
	return err
}
