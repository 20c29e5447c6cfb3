package initcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/afterwrite"
	"github.com/cmdai/cmdai/embed/embcache"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
)

// NewCmdRefresh is `cmdai index refresh`; runF, when not nil, replaces
// the run function (tests see the parsed options).
func NewCmdRefresh(f *cmdutil.Factory, runF func(*InitOptions) error) *cli.Command {
	opts := &InitOptions{Factory: f}
	b := newBuildFlags(opts, buildUsage{
		batchMode:   "CI: no progress bar, a JSON summary",
		docs:        "also the command docs and hints in `DIR` (repeatable), as for init",
		proseBudget: "at most `N` word pieces of each page's prose, as for init",
	})
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "incremental", Value: true, Usage: "only commands whose executable or man page changed, new ones and uninstalled ones (the default; --incremental=false re-reads every page)", Destination: &opts.Incremental},
		b.BatchMode, b.JSON, b.Distro, b.Lang, b.EmbedWorkers, b.Docs, b.ProseBudget, b.EmbedTokens,
	}
	flags = append(flags, b.Backend...)
	return &cli.Command{
		Name:      "refresh",
		Usage:     "bring the index up to date: re-index only what changed since it was built",
		UsageText: "cmdai index refresh [--incremental] [--json]",
		Description: `Compares each command's executable and man page (path, size, modification
time) with what the index holds, then re-parses only the commands that
changed (re-embedding only the chunks whose text changed), indexes new
commands and removes uninstalled ones. With nothing changed it reads no
page and loads no model. Run it after installing or upgrading packages.

EXAMPLES:
   $ cmdai index refresh
   $ cmdai index refresh --json   # {"plan":{"changed":[...],"added":[...],"removed":[...]}, ...}`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := takeBuildFlags(c, opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if !opts.Incremental {
				return RunInit(c.Context, opts) // keeps what is unchanged, reads every page
			}
			return RunRefresh(c.Context, opts)
		},
	}
}

// RunRefresh re-indexes what changed since the index was built and
// prints what it did.
func RunRefresh(ctx context.Context, opts *InitOptions) error {
	info, err := cmdutil.ResolveDistro(ctx, opts.Distro, opts.DetectDistro)
	if err != nil {
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
	emb := &embedders{opts: opts}
	defer emb.Close()
	bo, err := buildOptions(opts, info, emb)
	if err != nil {
		return err
	}
	clearProgress := setProgress(opts, &bo)
	var cache *embcache.Cache
	open := func(o *builder.Options) error {
		list, err := emb.Open(ctx)
		if err != nil {
			return err
		}
		o.Embedders = list
		withCache, err := buildOptions(opts, info, emb)
		o.Cache, cache = withCache.Cache, withCache.Cache
		return err
	}
	sum, err := builder.Refresh(ctx, conn.Store, bo, open)
	clearProgress()
	if cache != nil {
		cache.Close()
	}
	if err != nil {
		return err
	}
	afterwrite.Run(ctx, opts.Factory, conn, info.CollectionName(), opts.ForWriter(opts.BatchMode))
	return printRefresh(opts, info.CollectionName(), sum)
}

// printRefresh prints what a refresh of collection did.
func printRefresh(opts *InitOptions, collection string, sum builder.RefreshSummary) error {
	if opts.JSON || opts.BatchMode {
		return jsonout.Encode(opts.IO.Out, sum)
	}
	out := opts.IO.Out
	if sum.Plan.Empty() && sum.DocsWritten+sum.DocsDeleted == 0 {
		fmt.Fprintf(out, "%s is up to date (checked in %s)\n", collection, sum.Total)
		return nil
	}
	list := func(names []string) string {
		if len(names) > 8 {
			return strings.Join(names[:8], " ") + fmt.Sprintf(" (+%d)", len(names)-8)
		}
		return strings.Join(names, " ")
	}
	fmt.Fprintf(out, "refreshed %s in %s: %d changed, %d new, %d removed\n", collection, sum.Total, len(sum.Plan.Changed), len(sum.Plan.Added), len(sum.Plan.Removed))
	for _, l := range []struct {
		what  string
		names []string
	}{{"changed", sum.Plan.Changed}, {"new", sum.Plan.Added}, {"removed", sum.Plan.Removed}} {
		if len(l.names) > 0 {
			fmt.Fprintf(out, "  %-8s %s\n", l.what+":", list(l.names))
		}
	}
	if sum.DocsWritten+sum.DocsDeleted > 0 {
		fmt.Fprintf(out, "  docs:     %d records of custom docs and hints written, %d removed\n", sum.DocsWritten, sum.DocsDeleted)
	}
	if b := sum.Build; b != nil {
		fmt.Fprintf(out, "  chunks:   %d embedded, %d from cache, %d unchanged; %d records removed\n", b.Embedded, b.Cached, b.Unchanged, sum.Deleted)
	}
	return nil
}
