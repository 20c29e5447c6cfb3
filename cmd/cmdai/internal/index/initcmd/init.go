// Package initcmd is `cmdai index init` and `cmdai index refresh`: one
// build of this machine's index with two entry points (a full build, and
// an incremental one that re-embeds only what changed), declaring the
// build flags both share once. Each parses its flags, makes one call into
// builder, and prints.
package initcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/afterwrite"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/internal/termbar"
)

// InitOptions are the inputs of `cmdai index init`.
type InitOptions struct {
	*cmdutil.Factory
	Force        bool
	Verbose      bool
	BatchMode    bool
	JSON         bool
	Distro       string
	Lang         string
	Commands     []string
	HelpFallback bool
	Parallel     int
	Workers      int
	NoCache      bool
	ProseBudget  int
	EmbedTokens  int
	DocsDirs     []string
	Chroma       cmdutil.ChromaOptions
	Model        cmdutil.ModelOptions
	// Incremental is refresh's --incremental (only what changed; false
	// re-reads every page as init does). Init does not read it.
	Incremental bool
	// Seams for tests.
	PathDirs, ManPath []string
}

// NewCmdInit is `cmdai index init`; runF, when not nil, replaces the run
// function (tests see the parsed options).
func NewCmdInit(f *cmdutil.Factory, runF func(*InitOptions) error) *cli.Command {
	opts := &InitOptions{Factory: f}
	b := newBuildFlags(opts, buildUsage{
		batchMode:   "CI: no progress bar, a JSON summary, non-zero exit on failure",
		docs:        "also index the command docs and hints (Markdown) in `DIR` (repeatable; ~/.config/cmdai/commands and ~/.config/cmdai/hints always)",
		proseBudget: "embed at most `N` word pieces of each page's prose besides its summary, options and examples, section starts first (0: all; slower)",
	})
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "force", Usage: "rebuild this distribution's index from scratch (the old one answers until the new one is complete)", Destination: &opts.Force},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list pages that failed and each stage's figures", Destination: &opts.Verbose},
		b.BatchMode, b.JSON, b.Distro, b.Lang,
		&cli.StringSliceFlag{Name: "command", Usage: "only index `NAME` and your docs for it (repeatable; for trying things out)"},
		&cli.BoolFlag{Name: "help-fallback", Usage: "run \"CMD --help\" (sandboxed) for commands without a man page", EnvVars: []string{"CMDAI_HELP_FALLBACK"}, Destination: &opts.HelpFallback},
		&cli.IntFlag{Name: "parallel", Aliases: []string{"j"}, Usage: "`N` parser workers (0: one per CPU)", EnvVars: []string{"CMDAI_PARALLEL"}, Destination: &opts.Parallel},
		b.EmbedWorkers,
		&cli.BoolFlag{Name: "no-cache", Usage: "do not use or fill the embedding cache", Destination: &opts.NoCache},
		b.Docs, b.ProseBudget, b.EmbedTokens,
	}
	flags = append(flags, b.Backend...)
	return &cli.Command{
		Name:      "init",
		Usage:     "build this distribution's index: scan, parse, chunk, embed, write",
		UsageText: "cmdai index init [--force] [--verbose] [--batch-mode] [--chroma-url URL]",
		Description: `Indexes every command on $PATH that has a man page into the collection
of this distribution (cmdai_linux_debian-12, ...). Records have stable ids,
so running it again updates in place: unchanged chunks are kept, vectors
come from the embedding cache, uninstalled commands are removed. An
interrupted init is finished by running it again. A first build, and one
with --force, is written aside and replaces the index only when complete:
until then queries get the previous index (or none).

Without --chroma-url, cmdai starts a private Chroma server that only you
can reach (its own network namespace, a socket in its data directory) with
its data in ~/.local/share/cmdai/chroma and stops it when done.

EXAMPLES:
   $ cmdai index init
   $ cmdai index init --batch-mode > summary.json     # CI
   $ cmdai index init --chroma-url http://chroma.internal:8000 --chroma-token "$TOKEN"
   $ cmdai index init --force --model-variant fp32 --prose-budget 0   # slower, all of it`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Commands, err = clix.NoEmptyElements(c, "command"); err != nil {
				return err
			}
			if err := takeBuildFlags(c, opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return RunInit(c.Context, opts)
		},
	}
}

// RunInit builds the index opts describe and prints its summary.
func RunInit(ctx context.Context, opts *InitOptions) error {
	if opts.Force {
		// rebuilt from scratch: a deleted index is not put back first
		ctx = chroma.WithoutRestore(ctx)
	}
	info, err := cmdutil.ResolveDistro(ctx, opts.Distro, opts.DetectDistro)
	if err != nil {
		return err
	}
	// A typo must cost nothing: the names are checked against $PATH
	// before the model loads or anything in Chroma is touched.
	if err := pages.CheckCommands(ctx, pages.Options{PathDirs: opts.PathDirs, Commands: opts.Commands, Parallel: opts.Parallel}); err != nil {
		if errors.Is(err, pages.ErrUnknownCommand) {
			return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--command: %w; nothing was changed", err))
		}
		return err
	}
	emb := &embedders{opts: opts}
	defer emb.Close()
	if _, err := emb.Open(ctx); err != nil {
		return err
	}
	conn, err := opts.Connect(ctx, opts.Chroma)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.CheckBuildSpace(ctx, info.CollectionName(), len(opts.Commands)); err != nil {
		return err
	}
	bo, err := buildOptions(opts, info, emb)
	if err != nil {
		return err
	}
	if bo.Cache != nil {
		defer bo.Cache.Close()
	}
	bo.Embedders = emb.list
	clearProgress := setProgress(opts, &bo)
	sum, err := builder.Build(ctx, conn.Store, bo)
	clearProgress()
	if err != nil {
		// CI logs get an event; under --json the error is the object
		// every command prints for one (with its exit code)
		if opts.BatchMode && !opts.JSON {
			line, _ := jsonout.Marshal(map[string]any{"event": "failed", "error": err.Error()})
			fmt.Fprintln(opts.IO.Out, string(line))
		}
		return err
	}
	afterwrite.Run(ctx, opts.Factory, conn, info.CollectionName(), opts.ForWriter(opts.BatchMode))
	if err := printInit(opts, conn, sum, len(emb.list)); err != nil {
		return err
	}
	return askedFor(opts, sum)
}

// askedFor says why commands named with --command were not indexed: a
// warning when some were, an error (exit 1) when none was (issue 46:
// `--command docker`, which has no man page, indexed nothing, exit 0,
// and the same advice came back).
func askedFor(opts *InitOptions, sum builder.Summary) error {
	st := sum.Stats
	if len(opts.Commands) == 0 || st.NoManPage+st.Failed == 0 {
		return nil
	}
	var why []string
	switch n := st.NoManPage; {
	case n > 0 && opts.HelpFallback:
		why = append(why, fmt.Sprintf("%d of them have no man page, and no --help output could be read", n))
	case n > 0:
		why = append(why, fmt.Sprintf("%d of them have no man page here: run it again with --help-fallback to index their --help output", n))
	}
	if n := st.Failed; n > 0 {
		why = append(why, fmt.Sprintf("%d of their pages failed (--verbose lists them)", n))
	}
	msg := fmt.Sprintf("of the %d commands named with --command, %d were indexed: %s", len(opts.Commands), sum.Commands, strings.Join(why, "; "))
	if sum.Commands+sum.Subcommands == 0 {
		return cmdutil.WithCode(cmdutil.ExitFailure, errors.New(msg))
	}
	fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", msg)
	return nil
}

// setProgress shows a build's progress: a line that fits the terminal
// on a terminal, a JSON line every 100 pages in batch mode.
func setProgress(opts *InitOptions, bo *builder.Options) func() {
	if !opts.BatchMode && !opts.JSON && opts.IO.ErrTTY {
		bar := termbar.New(opts.IO.ErrOut, opts.IO.ErrWidth)
		bo.Progress = func(p builder.Progress) {
			done, total := work(p)
			bar.Set(done, total,
				fmt.Sprintf("indexing: %d/%d pages, %d/%d chunks embedded, %d reused", p.Pages, p.TotalPages, p.Embedded, p.ToEmbed, p.Reused),
				fmt.Sprintf("%d/%d pages, %d/%d embedded", p.Pages, p.TotalPages, p.Embedded, p.ToEmbed),
				fmt.Sprintf("%d/%d pages", p.Pages, p.TotalPages))
		}
		return bar.Done
	}
	if opts.BatchMode {
		// CI logs: a structured line every 100 pages, nothing more.
		last := -1
		bo.Progress = func(p builder.Progress) {
			if p.Pages != last && (p.Pages%100 == 0 || p.Pages == p.TotalPages) {
				last = p.Pages
				line, _ := jsonout.Marshal(map[string]any{"event": "progress", "pages": p.Pages, "total_pages": p.TotalPages, "chunks_count": p.Chunks, "embedded": p.Embedded, "to_embed": p.ToEmbed})
				fmt.Fprintln(opts.IO.ErrOut, string(line))
			}
		}
	}
	return func() {}
}

// work is a build's progress in units of work for the bar and its ETA:
// each page parsed is one, and so is each chunk embedded. Embedding is
// most of an init's time, and the pages are parsed alongside it (the
// parser waits on the embedders through bounded queues), so a count of
// pages alone runs ahead and then sits at 100 % while the last chunks are
// embedded; a count of chunks alone cannot be known before every page is
// parsed. So the chunks still to embed are projected from the pages
// parsed so far (those queued, scaled by all pages over pages parsed),
// exact once every page is through. A re-run that embeds nothing is
// counted in pages alone.
func work(p builder.Progress) (done, total int) {
	toEmbed := p.ToEmbed
	if p.Pages > 0 && p.Pages < p.TotalPages {
		toEmbed = (p.ToEmbed*p.TotalPages + p.Pages - 1) / p.Pages
	}
	return p.Pages + p.Embedded, p.TotalPages + max(toEmbed, p.Embedded)
}

func printInit(opts *InitOptions, conn *connect.Connection, sum builder.Summary, workers int) error {
	if opts.BatchMode || opts.JSON {
		return jsonout.Encode(opts.IO.Out, struct {
			builder.Summary
			Chroma string `json:"chroma"`
			Mode   string `json:"chroma_mode"`
		}{sum, conn.URL, conn.Mode})
	}
	out := opts.IO.Out
	subs := ""
	if sum.Subcommands > 0 {
		subs = fmt.Sprintf(", +%d subcommand pages", sum.Subcommands)
	}
	fmt.Fprintf(out, "indexed %d commands (+%d aliases%s) into %s on %s (%s)\n", sum.Commands, sum.Aliases, subs, sum.Collection, conn.URL, conn.Mode)
	fmt.Fprintf(out, "  chunks:   %d (%d embedded, %d from cache, %d unchanged), %d records written, %d removed, %d in the collection\n",
		sum.Chunks, sum.Embedded, sum.Cached, sum.Unchanged, sum.Written, sum.Deleted, sum.Records)
	if sum.DocsWritten+sum.DocsDeleted > 0 {
		fmt.Fprintf(out, "  docs:     %d records of custom docs and hints written, %d removed\n", sum.DocsWritten, sum.DocsDeleted)
	}
	if sum.Stats.Trimmed > 0 {
		fmt.Fprintf(out, "  budget:   %d chunks of long pages' prose left out (--prose-budget %d; 0 keeps all)\n", sum.Stats.Trimmed, opts.ProseBudget)
	}
	fmt.Fprintf(out, "  model:    %s %s (%s backend, %d embedders)\n", sum.Model, sum.Variant, sum.Backend, workers)
	fmt.Fprintf(out, "  time:     scan %s, parse %s, embed %s busy, write %s busy; total %s\n", sum.ScanTime, sum.ParseTime, sum.EmbedTime, sum.WriteTime, sum.Total)
	if opts.Verbose {
		printVerbose(out, sum)
	} else if sum.Failed > 0 {
		// the run went on without them: say which, and why, so a bad page
		// is seen without a rerun
		fmt.Fprintf(out, "  failed:   %d pages, indexed without them:\n", sum.Failed)
		for i, f := range sum.Failures {
			if i == maxFailuresShown {
				fmt.Fprintf(out, "            ... and %d more (--verbose or `cmdai index status --detailed` lists them)\n", len(sum.Failures)-i)
				break
			}
			fmt.Fprintf(out, "            %s: %s\n", f.Command, index.FailureText(f.Error))
		}
	}
	for _, c := range sum.Cut {
		// indexed in part: its answers may lack what was not read
		fmt.Fprintf(out, "  cut:      %s (%s): %s\n", c.Command, c.Page, c.Error)
	}
	fmt.Fprintf(out, "next: cmdai index query \"find files modified today\"\n")
	return nil
}

// maxFailuresShown is how many failed pages init's summary names without
// --verbose.
const maxFailuresShown = 5

// printVerbose adds what --verbose promises: the scan's totals, each
// stage's rate, and every page that failed with its reason.
func printVerbose(out io.Writer, sum builder.Summary) {
	st := sum.Stats
	fmt.Fprintf(out, "  scan:     %d commands on PATH: %d with a man page, %d parsed, %d aliases, %d without a page, %d failed\n",
		st.CommandsSeen, st.WithManPage, st.Parsed, st.Aliases, st.NoManPage, st.Failed)
	rate := func(n int, d pages.Duration) string {
		if s := time.Duration(d).Seconds(); s > 0 {
			return fmt.Sprintf("%.0f/s", float64(n)/s)
		}
		return "-"
	}
	fmt.Fprintf(out, "  rates:    parse %s pages, embed %s chunks per busy worker, write %s records\n",
		rate(st.Parsed, sum.ParseTime), rate(sum.Embedded, sum.EmbedTime), rate(sum.Written, sum.WriteTime))
	for _, p := range st.Problems {
		fmt.Fprintf(out, "  problem:  %s: %s\n", p.Path, p.Err)
	}
	for _, f := range sum.Failures {
		fmt.Fprintf(out, "  failed:   %s (%s): %s\n", f.Command, f.Page, f.Error)
	}
}
