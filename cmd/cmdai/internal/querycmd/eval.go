package querycmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/build/pages"
	"github.com/cmdai/cmdai/clix"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/bm25"
)

// EvalOptions are the inputs of `cmdai index eval`.
type EvalOptions struct {
	*cmdutil.Factory
	Queries string
	K       int
	Modes   string
	JSON    bool
	Distro  string
	Chroma  cmdutil.ChromaOptions
	Model   cmdutil.ModelOptions
	// FusedWeights, when set, replaces fused mode's weights (tuning).
	FusedWeights string
}

// baselineMode is plain BM25 over whole man pages (one document per
// command, every section the parser keeps, no prose budget), what
// hybrid retrieval is measured against.
const baselineMode = "bm25-pages"

// NewCmdEval is `cmdai index eval`.
func NewCmdEval(f *cmdutil.Factory) *cli.Command {
	opts := &EvalOptions{Factory: f}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "queries", Usage: "JSON Lines `FILE` of {\"query\": ..., \"command\": ...}", Required: true, Destination: &opts.Queries},
		&cli.IntFlag{Name: "k", Value: 10, Usage: "rank `N` commands per query", Destination: &opts.K},
		&cli.StringFlag{Name: "mode", Value: "semantic,keyword,hybrid,fused," + baselineMode, Usage: "comma-separated `MODES`: semantic, keyword, hybrid, fused, " + baselineMode + " (baseline)", Destination: &opts.Modes},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object per mode", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.StringFlag{Name: "fused-weights", Usage: "fused mode's weights as `JSON` (e.g. {\"page\": 0.5}; fields left out keep their defaults): for tuning on a train split", Destination: &opts.FusedWeights},
		&cli.StringFlag{Name: "distro", Usage: "evaluate the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "eval",
		Usage:     "measure how well the index finds the right command: hit@1/5/10, MRR@10, latency",
		UsageText: "cmdai index eval --queries FILE.jsonl [-k 10] [--mode semantic,keyword,hybrid,fused] [--json]",
		Description: `Runs each query of FILE (JSON Lines: {"query": "...", "command": "..."}) in
each mode and reports hit@1, hit@5, hit@10, MRR@10 and latency p50/p95 over
the queries whose command is in the index; the others are counted apart.
bm25-pages is the baseline: plain BM25 over whole man pages of this machine.
scripts/nl2bash-queries.py turns the NL2Bash corpus into such a file.

EXAMPLES:
   $ cmdai index eval --queries cmd/cmdai/testdata/requests.jsonl
   $ cmdai index eval --queries nl2bash.jsonl --mode hybrid --json
   $ cmdai index eval --queries train.jsonl --mode fused --fused-weights '{"page": 0}'`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.FirstErr(clix.NoArgs(c, ""), cmdutil.CheckDistroFlag(opts.Distro), cmdutil.CheckModelFlags(opts.Model)); err != nil {
				return err
			}
			if opts.K <= 0 {
				return cmdutil.UsageError("-k must be 1 or more, not %d", opts.K)
			}
			for _, m := range strings.Split(opts.Modes, ",") {
				if m = strings.TrimSpace(m); m == baselineMode {
					continue
				}
				if _, err := search.ParseMode(m); err != nil {
					return cmdutil.UsageError("--mode: %v (or %s)", err, baselineMode)
				}
			}
			if opts.FusedWeights != "" {
				if _, err := search.ParseFusedWeights(opts.FusedWeights); err != nil {
					return cmdutil.UsageError("--fused-weights: %v", err)
				}
			}
			if !c.IsSet("model-variant") {
				opts.Model.Variant = ""
			}
			return runEval(c.Context, opts)
		},
	}
}

func runEval(ctx context.Context, opts *EvalOptions) error {
	queries, err := search.ReadEvalQueries(opts.Queries)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, opts.Chroma)
	if err != nil {
		return err
	}
	defer conn.Close()
	s, closeS, err := OpenSearcher(ctx, opts.Factory, conn, info, opts.Model, true)
	if err != nil {
		return err
	}
	defer closeS()
	if opts.FusedWeights != "" {
		w, err := search.ParseFusedWeights(opts.FusedWeights)
		if err != nil {
			return cmdutil.UsageError("--fused-weights: %v", err)
		}
		s.Weights = &w
	}
	resolve := s.Keywords.Command
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
				return cmdutil.WithCode(cmdutil.ExitUsage, err)
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
