package initcmd

import (
	"context"
	"fmt"
	"runtime"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embcache"
	"github.com/cmdai/cmdai/internal/termtext"
)

// embedders opens the build's embedders once, when first needed: a
// refresh with nothing to embed loads no model.
type embedders struct {
	opts *InitOptions
	list []embed.Embedder
}

func (e *embedders) Open(ctx context.Context) ([]embed.Embedder, error) {
	if e.list != nil {
		return e.list, nil
	}
	workers := e.opts.Workers
	if workers <= 0 {
		// Measured: two one-thread embedders beat one two-thread one by
		// 1.3x on int8 and tie on fp32 (BENCHMARKS.md).
		workers = runtime.NumCPU()
	}
	if e.opts.Model.Backend == embed.BackendGo {
		workers = 1
	}
	for i := 0; i < workers; i++ {
		em, err := e.opts.Embedder(ctx, e.opts.Model, 1)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.list = append(e.list, em)
		if em.Info().Backend == embed.BackendGo {
			break // one session uses all cores already
		}
	}
	return e.list, nil
}

func (e *embedders) Close() {
	for _, em := range e.list {
		em.Close()
	}
	e.list = nil
}

// buildOptions turns the command's options into the indexer's; the
// embedding cache is opened for the model the embedders run (opening
// them if need be).
func buildOptions(opts *InitOptions, info distro.Info, emb *embedders) (builder.Options, error) {
	bo := builder.Options{
		Pages: pages.Options{
			PathDirs: opts.PathDirs, ManPath: opts.ManPath, Lang: opts.Lang, Commands: opts.Commands,
			HelpFallback: opts.HelpFallback, Parallel: opts.Parallel, Distro: info,
			ProseBudget: opts.ProseBudget,
		},
		Collection:  info.CollectionName(),
		ToolVersion: opts.Version,
		Force:       opts.Force,
		EmbedTokens: opts.EmbedTokens,
	}
	docs, problems, err := loadDocs(opts.Getenv, opts.DocsDirs)
	if err != nil {
		return bo, err
	}
	for _, p := range problems {
		fmt.Fprintf(opts.IO.ErrOut, "cmdai: skipped %s: %s\n", termtext.Clean(p.Path), termtext.Clean(p.Err))
	}
	bo.Docs = docs
	if !opts.NoCache && len(emb.list) > 0 {
		dir, err := config.EmbeddingCacheDir(opts.Getenv)
		if err != nil {
			return bo, err
		}
		ei := emb.list[0].Info()
		if bo.Cache, err = embcache.OpenCache(dir, ei.SHA256, ei.Dims); err != nil {
			return bo, err
		}
	}
	return bo, nil
}

// loadDocs reads users' command docs and hints: the default directories
// under the config root, then dirs. A broken file is a problem reported by
// name, never an error.
func loadDocs(getenv func(string) string, dirs []string) ([]customdocs.Doc, []customdocs.Problem, error) {
	defaults, err := config.DocDirs(getenv)
	if err != nil {
		return nil, nil, err
	}
	all := append(defaults, dirs...)
	docs, problems := customdocs.Load(all)
	return docs, problems, nil
}
