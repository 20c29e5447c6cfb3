package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/completioncmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/doctorcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/explaincmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/clearcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/docscmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/downloadcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/evalcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/exportcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/importcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/scancmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/statuscmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/mancmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/mcpcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/modelcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/servecmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/showcmd"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/firstuse"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/internal/sigctx"
	"github.com/cmdai/cmdai/internal/termbar"
	"github.com/cmdai/cmdai/internal/termtext"
)

// version is set by the release build (-ldflags "-X main.version=...").
var version = "dev"

// moreHelp is the last line of `cmdai --help`: where the rest is.
const moreHelp = `More help: cmdai COMMAND --help, cmdai help exit-codes, cmdai help config, man cmdai`

func init() {
	// -v means --verbose wherever a command has it: the version is
	// --version alone (-v still prints it, with a note: oldVersionFlag).
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version", DisableDefaultText: true}
}

// newApp declares the command tree; the commands live in internal/*cmd,
// those of `cmdai index` in internal/index/*cmd, each package named for
// its CLI path.
// Each command's constructor declares its flags and parses them into an
// options struct; its run function does the work (a test passes a runF
// in its place, here nil). Nothing here prints results.
func newApp(f *cmdutil.Factory) *cli.App {
	// The -v that printed the version before -v meant --verbose: hidden,
	// kept for scripts, with a deprecation note.
	oldVersionFlag := &cli.BoolFlag{Name: "v", Hidden: true}
	app := &cli.App{
		Name:    "cmdai",
		Usage:   "find the command for what you want to do, in this machine's man pages",
		Version: version,
		// Two or three lines and the examples a newcomer starts with; the
		// rest is in the help topics and the manual page (man cmdai).
		Description: `cmdai indexes the man pages of the commands installed here, offline, and
answers "how do I ..." with the commands and options that do it; explain
checks a command line word by word; serve and mcp answer other programs.

EXAMPLES:
   $ cmdai index init                                   # build the index of this machine, once
   $ cmdai search "extract a tar.gz archive into a directory"
   $ cmdai show tar                                     # one command's synopsis, options, examples
   $ cmdai explain 'tar -xzvf a.tgz -C /tmp | grep -c foo'  # each word, by the index`,
		CustomAppHelpTemplate: clix.AppHelpTemplate(moreHelp),
		Writer:                f.IO.Out,
		ErrWriter:             f.IO.ErrOut,
		Flags: []cli.Flag{
			&cli.BoolFlag{
				Name:    "batch-mode",
				Usage:   "CI mode: no progress bars, quiet structured logs",
				EnvVars: []string{"CMDAI_BATCH_MODE"},
			},
			oldVersionFlag,
		},
		Commands: []*cli.Command{
			// The main job first: what a newcomer types most.
			querycmd.NewCmdSearch(f, nil),
			showcmd.NewCmdShow(f, nil),
			explaincmd.NewCmdExplain(f, nil),
			newIndexCommand(f),
			modelcmd.NewCmdModel(f),
			mcpcmd.NewCmdMCP(f, nil),
			servecmd.NewCmdServe(f, nil),
			doctorcmd.NewCmdDoctor(f, nil),
			completioncmd.NewCmdCompletion(f, nil),
			mancmd.NewCmdMan(f, nil),
			clix.HelpTopic("exit-codes", "what each exit code means", cmdutil.ExitCodesHelp),
			clix.HelpTopic("config", "where settings come from: flags, CMDAI_* variables, the configuration file", configHelp),
		},
		// The exit code is chosen by run, not by the library calling
		// os.Exit from inside Run.
		ExitErrHandler: func(*cli.Context, error) {},
		Before: func(c *cli.Context) error {
			f.Batch = c.Bool("batch-mode")
			if c.Bool(oldVersionFlag.Name) {
				fmt.Fprintln(f.IO.ErrOut, "cmdai: -v for the version is deprecated and will mean --verbose: use --version")
			}
			return moveOldHome(c, f)
		},
		OnUsageError:         clix.OnUsageError,
		EnableBashCompletion: true,
		Action: func(c *cli.Context) error {
			if c.Bool(oldVersionFlag.Name) && c.NArg() == 0 {
				cli.ShowVersion(c)
				return nil
			}
			return clix.AppAction(c)
		},
	}
	applyConfigFile(f, app)
	clix.UseHelpTemplates(app.Commands)
	clix.RefuseEmptyValues(app.Commands)
	return app
}

// moveOldHome moves an older cmdai's index and model out of the cache
// root, once, before any command that may use them (not for help, the
// completion script or the man page, which touch no data: `make install`
// should not move a user's index; a TAB press never gets here, see run).
func moveOldHome(c *cli.Context, f *cmdutil.Factory) error {
	switch c.Args().First() {
	case "", "help", "h", "completion", "__man":
		return nil
	}
	for _, t := range clix.Topics(c.App.Commands) {
		if t.HasName(c.Args().First()) {
			return nil
		}
	}
	if helpAsked(c) {
		return nil
	}
	err := f.MoveOldHome(c.Context)
	if err != nil && c.Context.Err() == nil {
		// Where the data lives may come from the configuration file: a bad
		// one is the command's to report (exit 2, naming the file), not
		// this move's (it was exit 1, and `--help` printed nothing).
		getenv := f.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if _, cerr := config.Load(getenv); cerr != nil {
			return nil
		}
	}
	return err
}

func newIndexCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "index",
		Usage: "build and inspect the command-documentation index",
		Description: `The index holds one Chroma collection per distribution
(cmdai_linux_debian-12, cmdai_macos_14, ...).

EXAMPLES:
   $ cmdai index init                                  # build it for this machine
   $ cmdai index query "find files modified in the last day"
   $ cmdai index status
   $ cmdai index clear --confirm
   $ cmdai index export /media/usb/                    # ship it: tarball + .sha256
   $ cmdai index import chroma-index-debian-12.tar.gz  # verified, atomic
   $ cmdai index download ubuntu-24.04                 # a published one
   $ cmdai index scan --stats   # dry run: what would be indexed, with totals`,
		Subcommands: []*cli.Command{
			scancmd.NewCmdScan(f, nil),
			initcmd.NewCmdInit(f, nil),
			initcmd.NewCmdRefresh(f, nil),
			querycmd.NewCmdQuery(f, nil),
			statuscmd.NewCmdStatus(f, nil),
			clearcmd.NewCmdClear(f, nil),
			exportcmd.NewCmdExport(f, nil),
			importcmd.NewCmdImport(f, nil),
			downloadcmd.NewCmdDownload(f, nil),
			evalcmd.NewCmdEval(f, nil),
			docscmd.NewCmdDocs(f, nil),
		},
		OnUsageError: clix.OnUsageError,
		Action:       clix.GroupAction,
	}
}

// run executes the command line and returns the process exit code,
// printing the error, if any, to ErrOut, and under --json also as a JSON
// object on Out.
func run(ctx context.Context, args []string, io *cmdutil.IOStreams) int {
	// Results, tables, --context and help all carry text from man pages
	// and --help output: none of it may drive the terminal (set its title,
	// move the cursor). JSON needs no cleaning but for C1 controls, which
	// encoding/json leaves raw. ErrOut is not wrapped: progress bars draw
	// on it with control characters; what it prints from pages is cleaned
	// where it is printed.
	safe := *io
	out := &countingWriter{w: termtext.NewWriter(io.Out)}
	safe.Out = out
	io = &safe
	f := cmdutil.NewFactory(io, os.Getenv, version)
	app := newApp(f)
	// A shell asking for candidates at <TAB> gets them and nothing else:
	// the command tree is walked, never run (see completioncmd.Complete).
	if len(args) > 1 && completioncmd.IsCompletionRequest(args[1:]) {
		completioncmd.Complete(app, args[1:], app.Writer)
		return cmdutil.ExitOK
	}
	// `help bogus`: the library's hook cannot return an error
	var notFound clix.NotFound
	app.CommandNotFound = notFound.Hook
	jsonOn := clix.WatchBool(app, "json")
	ctx, watch := connect.WithWatch(ctx)
	if io.ErrTTY {
		// what a first use still builds (an index written by an older
		// cmdai, or elsewhere) turns on stderr instead of a blank wait
		ctx = firstuse.With(ctx, termbar.NewSpinner(io.ErrOut, io.ErrWidth).Begin)
	}
	err := watch.Explain(app.RunContext(ctx, clix.HoistFlags(app, args)))
	if err == nil {
		err = notFound.Err()
	}
	if err == nil {
		return cmdutil.ExitOK
	}
	msg, code := failure(ctx, err)
	fmt.Fprintf(io.ErrOut, "cmdai: %s\n", msg)
	// Under --json a script reads stdout: the error is an object there
	// too, unless the command printed its result already (status and
	// model status report a failing state in it).
	if jsonOn.On(args) && out.n == 0 {
		_ = jsonout.Encode(io.Out, jsonout.Error{Error: msg, ExitCode: code})
	}
	return code
}

// failure is the message and exit code of a run that failed with err.
func failure(ctx context.Context, err error) (string, int) {
	const interrupted = "interrupted; nothing was changed that a re-run cannot finish"
	// A signal ended the run (the command stopped gracefully): 128 + its
	// number, whatever error the stop surfaced as.
	if code, ok := sigctx.SignalExit(ctx); ok {
		return interrupted, code
	}
	if errors.Is(err, context.Canceled) {
		return interrupted, cmdutil.ExitFailure
	}
	// An error may quote a page or a server's log.
	msg := termtext.Clean(err.Error())
	// The library's own usage errors: an unknown flag, a missing required
	// one (where no OnUsageError saw them).
	if strings.HasPrefix(msg, "flag provided but not defined") || strings.Contains(msg, "Required flag") {
		return msg, cmdutil.ExitUsage
	}
	return msg, cmdutil.ExitCode(err)
}

// countingWriter counts what a command printed on stdout.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
