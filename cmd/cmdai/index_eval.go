package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/build"
	"github.com/cmdai/cmdai/build/pages"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/bm25"
)

// EvalOptions are the inputs of `cmdai index eval`.
type EvalOptions struct {
	IO      *IOStreams
	Getenv  func(string) string
	Queries string
	K       int
	Modes   string
	JSON    bool
	Distro  string
	Chroma  ChromaOptions
	Model   ModelOptions
}

// baselineMode is plain BM25 over whole man pages (one document per
// command, every section the parser keeps, no prose budget), what
// hybrid retrieval is measured against.
const baselineMode = "bm25-pages"

func newEvalCommand(f *Factory) *cli.Command {
	opts := &EvalOptions{IO: f.IO, Getenv: f.Getenv}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "queries", Usage: "JSON Lines `FILE` of {\"query\": ..., \"command\": ...}", Required: true, Destination: &opts.Queries},
		&cli.IntFlag{Name: "k", Value: 10, Usage: "rank `N` commands per query", Destination: &opts.K},
		&cli.StringFlag{Name: "mode", Value: "semantic,keyword,hybrid," + baselineMode, Usage: "comma-separated `MODES`: semantic, keyword, hybrid, " + baselineMode + " (baseline)", Destination: &opts.Modes},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object per mode", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.StringFlag{Name: "distro", Usage: "evaluate the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
	}
	flags = append(flags, modelFlags(&opts.Model.Dir, &opts.Model.Variant, &opts.Model.Backend)...)
	flags = append(flags, chromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "eval",
		Usage:     "measure how well the index finds the right command: hit@1/5/10, MRR@10, latency",
		UsageText: "cmdai index eval --queries FILE.jsonl [-k 10] [--mode semantic,keyword,hybrid] [--json]",
		Description: `Runs each query of FILE (JSON Lines: {"query": "...", "command": "..."}) in
each mode and reports hit@1, hit@5, hit@10, MRR@10 and latency p50/p95 over
the queries whose command is in the index; the others are counted apart.
bm25-pages is the baseline: plain BM25 over whole man pages of this machine.
scripts/nl2bash-queries.py turns the NL2Bash corpus into such a file.

EXAMPLES:
   $ cmdai index eval --queries cmd/cmdai/testdata/requests.jsonl
   $ cmdai index eval --queries nl2bash.jsonl --mode hybrid --json`,
		Flags:        flags,
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if err := firstErr(noArgs(c, ""), checkDistroFlag(opts.Distro), checkModelFlags(opts.Model)); err != nil {
				return err
			}
			if opts.K <= 0 {
				return usageError("-k must be 1 or more, not %d", opts.K)
			}
			for _, m := range strings.Split(opts.Modes, ",") {
				if m = strings.TrimSpace(m); m == baselineMode {
					continue
				}
				if _, err := search.ParseMode(m); err != nil {
					return usageError("--mode: %v (or %s)", err, baselineMode)
				}
			}
			if !c.IsSet("model-variant") {
				opts.Model.Variant = ""
			}
			return runEval(c.Context, opts)
		},
	}
}

func readEvalQueries(path string) ([]search.EvalQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []search.EvalQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q search.EvalQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil || q.Text() == "" || q.Command == "" {
			return nil, fmt.Errorf("%s line %d: want {\"query\": \"...\", \"command\": \"...\"}", path, n)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

func runEval(ctx context.Context, opts *EvalOptions) error {
	queries, err := readEvalQueries(opts.Queries)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	info, conn, err := openDistroIndex(ctx, opts.Getenv, opts.Distro, opts.Chroma)
	if err != nil {
		return err
	}
	defer conn.Close()
	s, closeS, err := openSearcher(ctx, opts.IO, opts.Getenv, conn, info, opts.Model, true)
	if err != nil {
		return err
	}
	defer closeS()
	resolve := func(name string) (string, bool) {
		c, ok := s.Keywords.Names[name]
		return c, ok
	}
	for _, m := range strings.Split(opts.Modes, ",") {
		m = strings.TrimSpace(m)
		var rank search.Ranker
		if m == baselineMode {
			pages, err := pagesBaseline(ctx, info)
			if err != nil {
				return err
			}
			rank = func(_ context.Context, request string, k int) ([]string, error) {
				var out []string
				for _, h := range pages.Search(request, k) {
					out = append(out, h.Command)
				}
				return out, nil
			}
		} else {
			mode, err := search.ParseMode(m)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			rank = func(ctx context.Context, request string, k int) ([]string, error) {
				hits, err := s.Search(ctx, request, k, mode)
				var out []string
				for _, h := range hits {
					out = append(out, h.Command)
				}
				return out, err
			}
		}
		res, err := search.Evaluate(ctx, m, queries, opts.K, resolve, rank)
		if err != nil {
			return err
		}
		if opts.JSON {
			if err := json.NewEncoder(opts.IO.Out).Encode(res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(opts.IO.Out, "%-11s %d queries (%d not indexed): hit@1 %5.1f%%  hit@5 %5.1f%%  hit@10 %5.1f%%  MRR@10 %.3f  latency p50 %.1f ms p95 %.1f ms\n",
			m, res.Queries, res.NotIndexed, 100*res.Hit1, 100*res.Hit5, 100*res.Hit10, res.MRR10, res.P50Millis, res.P95Millis)
	}
	return nil
}

// pagesBaseline indexes this machine's man pages whole: one BM25 document
// per command with the text of every chunk, no prose budget.
func pagesBaseline(ctx context.Context, info distro.Info) (*bm25.Index, error) {
	var docs []bm25.Doc
	_, err := pages.Run(ctx, pages.Options{Distro: info}, func(r pages.Result) error {
		if len(r.Chunks) == 0 {
			return nil
		}
		var b strings.Builder
		for _, c := range r.Chunks {
			b.WriteString(c.Text)
			b.WriteString("\n")
		}
		docs = append(docs, bm25.Doc{ID: r.Command, Command: r.Command, Aliases: r.Aliases, Text: b.String()})
		return nil
	})
	return bm25.Build(docs), err
}

// openSearcher opens what a search in any mode needs: the collection, the
// embedder of its model, and its keyword index (loaded or built, when
// withKeywords).
func openSearcher(ctx context.Context, io *IOStreams, getenv func(string) string, conn *connection, info distro.Info, mo ModelOptions, withKeywords bool) (search.Searcher, func(), error) {
	coll, err := openIndex(ctx, conn, info.CollectionName())
	if err != nil {
		return search.Searcher{}, nil, err
	}
	if err := answerable(ctx, coll); err != nil {
		return search.Searcher{}, nil, err
	}
	meta := index.ParseMeta(coll.Metadata())
	if mo.Variant == "" {
		mo.Variant = meta.ModelVariant
	}
	var e embed.Embedder
	if e, err = openEmbedder(ctx, io, getenv, mo, 0); err != nil {
		return search.Searcher{}, nil, err
	}
	if err := build.CheckModel(meta, e.Info()); err != nil {
		e.Close()
		return search.Searcher{}, nil, withCode(ExitVerification, err)
	}
	s := search.Searcher{Coll: coll, Embedder: e}
	if withKeywords {
		dir, err := config.KeywordDir(getenv)
		if err != nil {
			e.Close()
			return s, nil, err
		}
		if s.Keywords, err = search.KeywordIndex(ctx, coll, dir); err != nil {
			e.Close()
			return s, nil, err
		}
	}
	return s, func() { e.Close() }, nil
}
