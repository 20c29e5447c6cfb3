// Package evalcmd is `cmdai index eval`: measuring how well the index
// finds the right command (hit@1/5/10, MRR@10, latency) over a file of
// requests, per retrieval mode, with --features writing what
// learn-ranker.py fits. It parses its flags, ranks each request through
// search and search/evaluate, and prints.
package evalcmd

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/adapter"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/evaluate"
	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/ranker"
)

// EvalOptions are the inputs of `cmdai index eval`.
type EvalOptions struct {
	*cmdutil.Factory
	Queries string
	K       int
	Modes   string
	JSON    bool
	// Misses is the JSON Lines file of missed requests (empty: none).
	Misses string
	// Compare pairs every mode with Baseline (default the first mode).
	Compare  bool
	Baseline string
	Distro   string
	Chroma   cmdutil.ChromaOptions
	Model    cmdutil.ModelOptions
	// FusedWeights, when set, replaces fused mode's weights (tuning).
	FusedWeights string
	// LearnedWeights is a JSON file replacing learned mode's weights.
	LearnedWeights string
	// Features is the JSON Lines file of learned mode's candidates and
	// their features per request (for scripts/research/learn-ranker.py).
	Features string
	// Adapter is a query adapter file to score learned mode with, in
	// place of the reranker's (search/adapter; `make adapter-train`).
	Adapter string
	// Vectors is the JSON Lines file of each request's embedding as the
	// index's model gives it (what train-adapter.py fits on).
	Vectors string
	// Outcomes is the JSON Lines file of every request's outcome per
	// mode (rank and flag), for pairing two runs.
	Outcomes string
	// NoOptionRank answers without the option ranker (each command's
	// matches in the command ranking's order): the baseline of a flag
	// figure.
	NoOptionRank bool
	// OptionFeatures is the JSON Lines file of the option ranker's
	// features per request (its expected command's records), and
	// PageExamples adds every page's examples as pseudo-requests to it.
	OptionFeatures string
	PageExamples   bool
	// OptionWeights is a JSON file replacing the option ranker's weights.
	OptionWeights string
}

// baselineMode is plain BM25 over whole man pages (one document per
// command, every section the parser keeps, no prose budget), what
// hybrid retrieval is measured against.
const baselineMode = "bm25-pages"

// NewCmdEval is `cmdai index eval`; runF, when not nil, replaces the run
// function (tests see the parsed options).
func NewCmdEval(f *cmdutil.Factory, runF func(*EvalOptions) error) *cli.Command {
	opts := &EvalOptions{Factory: f}
	flags := evalFlags(opts)
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.RerankFlags(&opts.Model.Rerank)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "eval",
		Usage:     "measure how well the index finds the right command: hit@1/5/10, MRR@10, latency",
		UsageText: "cmdai index eval --queries FILE.jsonl [-k 10] [--mode semantic,keyword,hybrid,fused] [--misses FILE] [--compare] [--fused-weights JSON] [--json]",
		Description: `Runs each query of FILE (JSON Lines: {"query": "...", "command": "..."}) in
each mode and reports hit@1, hit@5, hit@10, MRR@10 and latency p50/p95 over
the queries whose command is in the index; the others are counted apart.
The figures are also broken down by the source of the expected command's
records (man, help, custom). bm25-pages is the baseline: plain BM25 over
whole man pages of this machine. scripts/research/nl2bash-queries.py turns the
NL2Bash corpus into such a file (--split test: the held-out part).

--misses FILE writes one JSON line per request whose command was not first,
per mode: the request, the expected command, its rank (null past -k) and
the top 5 returned with their scores.

--features FILE writes, per request, every command learned mode considers
with its features and whether it is the expected one: what
scripts/research/learn-ranker.py fits learned mode's weights on (train split only).

--adapter FILE scores learned mode with the query adapter in FILE (a linear
map of the request's vector, make adapter-train) in place of the one the
reranker came with: its description cosines are two more features beside
the reranker's. --vectors FILE writes each indexed request's vector, as
the embedder gives it, as JSON Lines {"query", "command", "vector"}.

--compare pairs every other mode with the baseline mode (--baseline, default
the first mode given) request by request: wins, losses and ties of the
reciprocal rank at 10, the exact two-sided sign test's p-value (ties
dropped), and the hit@1 difference in points.

EXAMPLES:
   $ cmdai index eval --queries cmd/cmdai/testdata/requests.jsonl
   $ cmdai index eval --queries nl2bash.jsonl --mode hybrid --json
   $ cmdai index eval --queries test.jsonl --mode semantic,hybrid --compare --misses misses.jsonl
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
			if err := checkEvalModes(opts); err != nil {
				return err
			}
			if opts.FusedWeights != "" {
				if _, err := search.ParseFusedWeights(opts.FusedWeights); err != nil {
					return cmdutil.UsageError("--fused-weights: %v", err)
				}
			}
			if opts.LearnedWeights != "" {
				if _, err := ranker.ReadWeights(opts.LearnedWeights); err != nil {
					return cmdutil.UsageError("--learned-weights: %v", err)
				}
			}
			if opts.Adapter != "" {
				if opts.Model.Rerank.Off {
					return cmdutil.UsageError("--adapter adds learned mode's features beside the reranker's: drop --no-rerank")
				}
				if _, err := adapter.Read(opts.Adapter); err != nil {
					return cmdutil.UsageError("--adapter: %v", err)
				}
			}
			if !c.IsSet("model-variant") {
				opts.Model.Variant = ""
			}
			if runF != nil {
				return runF(opts)
			}
			return runEval(c.Context, opts)
		},
	}
}

// evalModes are the --mode list, trimmed, empty entries dropped.
func evalModes(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// checkEvalModes rejects unknown modes, a baseline that is not evaluated,
// a comparison of one mode, and a misses or features file in a missing
// directory (found out before the run, not after minutes of it).
func checkEvalModes(opts *EvalOptions) error {
	modes := evalModes(opts.Modes)
	if len(modes) == 0 {
		return cmdutil.UsageError("--mode: name one mode or more: semantic, keyword, hybrid, %s", baselineMode)
	}
	for _, m := range modes {
		if m == baselineMode {
			continue
		}
		if _, err := search.ParseMode(m); err != nil {
			return cmdutil.UsageError("--mode: %v (or %s)", err, baselineMode)
		}
	}
	if opts.Baseline != "" {
		opts.Compare = true
		if !slices.Contains(modes, opts.Baseline) {
			return cmdutil.UsageError("--baseline %q is not among --mode %s: add it there", opts.Baseline, strings.Join(modes, ","))
		}
	}
	if opts.Compare && len(modes) < 2 {
		return cmdutil.UsageError("--compare needs two modes or more in --mode, not %q", opts.Modes)
	}
	for flag, path := range map[string]string{"--misses": opts.Misses, "--features": opts.Features, "--vectors": opts.Vectors,
		"--outcomes": opts.Outcomes, "--option-features": opts.OptionFeatures} {
		if path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return cmdutil.UsageError("%s %s: its directory does not exist: create it or pick another path", flag, path)
		}
	}
	return nil
}

func runEval(ctx context.Context, opts *EvalOptions) error {
	queries, err := evaluate.ReadEvalQueries(opts.Queries)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, opts.Chroma)
	if err != nil {
		return err
	}
	defer conn.Close()
	s, closeS, err := opts.OpenSearcher(ctx, conn, info, opts.Model, true)
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
	if opts.LearnedWeights != "" {
		if s.Learned, err = ranker.ReadWeights(opts.LearnedWeights); err != nil {
			return cmdutil.UsageError("--learned-weights: %v", err)
		}
	}
	if opts.Adapter != "" {
		a, err := adapter.Read(opts.Adapter)
		if err != nil {
			return cmdutil.UsageError("--adapter: %v", err)
		}
		if a.Dims() != s.Embedder.Info().Dims {
			return cmdutil.UsageError("--adapter %s maps vectors of %d, the model gives %d: train it for this model", opts.Adapter, a.Dims(), s.Embedder.Info().Dims)
		}
		if s.Reranker == nil {
			return cmdutil.UsageError("--adapter adds learned mode's features beside the reranker's, and no reranker is installed: pass --reranker-dir (`make reranker` builds one)")
		}
		s.Reranker = adapter.Attach(s.Reranker, a) // in place of the one the reranker came with
	}
	if err := optionRanker(ctx, &s, opts, queries); err != nil {
		return err
	}
	if opts.Vectors != "" {
		if err := writeVectors(ctx, s, queries, opts.Vectors); err != nil {
			return err
		}
	}
	if opts.Features != "" {
		if err := writeFeatures(ctx, s, queries, opts.Features); err != nil {
			return err
		}
	}
	sources := evaluate.SourcesOf(s.Keywords)
	sourceOf := func(c string) string { return sources[c] }
	modes := evalModes(opts.Modes)
	if opts.Compare && opts.Baseline == "" {
		opts.Baseline = modes[0]
	}
	// The baseline runs first so that every other mode can be compared
	// as soon as it is done; output keeps the order of --mode.
	order := slices.Clone(modes)
	if opts.Compare {
		order = append([]string{opts.Baseline}, slices.DeleteFunc(order, func(m string) bool { return m == opts.Baseline })...)
	}
	results := map[string]evaluate.EvalResult{}
	sizes := map[string][]int{}
	for _, m := range order {
		rank, err := evalRanker(ctx, s, info, m, func(n int) { sizes[m] = append(sizes[m], n) })
		if err != nil {
			return err
		}
		res, err := evaluate.EvaluateFlags(ctx, m, queries, opts.K, s.Keywords.Command, sourceOf, needOf(s), rank)
		if err != nil {
			return err
		}
		if opts.Compare && m != opts.Baseline {
			if res.Compared, err = evaluate.Compare(results[opts.Baseline], res); err != nil {
				return err
			}
		}
		results[m] = res
	}
	var all []evaluate.EvalResult
	for _, m := range modes {
		res := results[m]
		res.AnswerBytes = bytesOf(sizes[m])
		all = append(all, res)
		if err := printEval(opts, res); err != nil {
			return err
		}
	}
	return writeResults(opts, all)
}

// writeResults writes the --misses and --outcomes files of the results.
func writeResults(opts *EvalOptions, all []evaluate.EvalResult) error {
	if opts.Misses != "" {
		if err := evaluate.WriteMisses(opts.Misses, all); err != nil {
			return fmt.Errorf("%w: check the --misses path and free space", err)
		}
	}
	if opts.Outcomes != "" {
		if err := evaluate.WriteOutcomes(opts.Outcomes, all); err != nil {
			return fmt.Errorf("%w: check the --outcomes path and free space", err)
		}
	}
	return nil
}

// evalRanker is mode m as a evaluate.Ranker; size is told the bytes of
// each answer as `cmdai search -k 5 --json` prints it.
func evalRanker(ctx context.Context, s search.Searcher, info distro.Info, m string, size func(int)) (evaluate.Ranker, error) {
	if m == baselineMode {
		pages, parents, err := pagesBaseline(ctx, info)
		if err != nil {
			return nil, err
		}
		return func(_ context.Context, request string, k int) ([]evaluate.Ranked, error) {
			var out []evaluate.Ranked
			for _, h := range pages.Search(request, k) {
				out = append(out, evaluate.Ranked{Command: h.Command, Parent: parents[h.Command], Score: h.Score})
			}
			return out, nil
		}, nil
	}
	mode, err := search.ParseMode(m)
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	// as `cmdai search` answers: the matches an answer shows, for the
	// flag figures
	return func(ctx context.Context, request string, k int) ([]evaluate.Ranked, error) {
		a, err := s.Answer(ctx, search.Request{Query: request, K: k, Mode: mode})
		if err == nil {
			b, jerr := jsonout.Marshal(answer.QueryResult{Request: request, Collection: info.CollectionName(), Commands: a.Commands[:min(evaluate.FlagTop, len(a.Commands))], Millis: 12.345})
			if jerr != nil {
				return nil, jerr
			}
			size(len(b) + 1)
		}
		var out []evaluate.Ranked
		for _, h := range a.Commands {
			r := evaluate.Ranked{Command: h.Command, Parent: h.Parent, Score: h.Score}
			for _, m := range h.Matches {
				r.Shown = append(r.Shown, evaluate.Shown{ID: m.ID, Kind: string(m.Kind), Text: m.Text})
			}
			out = append(out, r)
		}
		return out, err
	}, nil
}

// printEval prints one mode: a JSON object, or a line of figures, one per
// source and the comparison with the baseline.
func printEval(opts *EvalOptions, res evaluate.EvalResult) error {
	w := opts.IO.Out
	if opts.JSON {
		return jsonout.Encode(w, res)
	}
	fmt.Fprintf(w, "%-11s %d queries (%d not indexed): %s  latency p50 %.1f ms p95 %.1f ms\n",
		res.Mode, res.Queries, res.NotIndexed, figures(res.Metrics), res.P50Millis, res.P95Millis)
	srcs := slices.Sorted(maps.Keys(res.BySource))
	for _, src := range srcs {
		m := res.BySource[src]
		fmt.Fprintf(w, "  %-9s %d queries: %s\n", src, m.Queries, figures(m))
	}
	if b := res.AnswerBytes; b != nil {
		fmt.Fprintf(w, "  bytes     -k %d --json answers: p50 %d B, p95 %d B, %.0f%% under 4 KB\n", evaluate.FlagTop, b.P50, b.P95, 100*b.Under4K)
	}
	if f := res.Flags; f != nil {
		fmt.Fprintf(w, "  flags     %d queries with options (index holds one for %.1f%%): flag@1 %5.1f%%  flag given cmd %5.1f%% (%d with the command in the top %d)\n",
			f.Queries, 100*f.Ceiling, 100*f.At1, 100*f.GivenCmd, f.GivenQueries, evaluate.FlagTop)
	}
	if c := res.Compared; c != nil {
		fmt.Fprintf(w, "  vs %s (RR@10, same %d requests): %d wins, %d losses, %d ties, sign test p = %.3g; hit@1 %+.1f points, hit@5 %+.1f, MRR@10 %+.1f\n",
			c.Baseline, c.Wins+c.Losses+c.Ties, c.Wins, c.Losses, c.Ties, c.P, c.Hit1Points, c.Hit5Points, c.MRR10Points)
	}
	return nil
}

func figures(m evaluate.Metrics) string {
	return fmt.Sprintf("hit@1 %5.1f%%  hit@5 %5.1f%%  hit@10 %5.1f%%  MRR@10 %.3f", 100*m.Hit1, 100*m.Hit5, 100*m.Hit10, m.MRR10)
}

// pagesBaseline indexes this machine's man pages whole: one BM25 document
// per command with the text of every chunk, no prose budget.
func pagesBaseline(ctx context.Context, info distro.Info) (*bm25.Index, map[string]string, error) {
	var docs []bm25.Doc
	parents := map[string]string{} // subcommand page -> its command
	_, err := pages.Run(ctx, pages.Options{Distro: info}, func(r pages.Result) error {
		if len(r.Chunks) == 0 {
			return nil
		}
		if r.Parent != "" {
			parents[r.Command] = r.Parent
		}
		var b strings.Builder
		for _, c := range r.Chunks {
			b.WriteString(c.Text)
			b.WriteString("\n")
		}
		docs = append(docs, bm25.Doc{ID: r.Command, Command: r.Command, Aliases: r.Aliases, Text: b.String()})
		return nil
	})
	return bm25.Build(docs), parents, err
}

// bytesOf sums up answer sizes (nil for none).
func bytesOf(sizes []int) *evaluate.Bytes {
	if len(sizes) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(sizes))
	pct := func(p float64) int { return s[min(len(s)-1, int(p*float64(len(s))))] }
	under := 0
	for _, n := range s {
		if n < 4096 {
			under++
		}
	}
	return &evaluate.Bytes{P50: pct(0.5), P95: pct(0.95), Under4K: float64(under) / float64(len(s))}
}

// evalFlags are eval's own flags (the model's, reranker's and Chroma's
// are added by NewCmdEval).
func evalFlags(opts *EvalOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "queries", Usage: "JSON Lines `FILE` of {\"query\": ..., \"command\": ...}", Required: true, Destination: &opts.Queries},
		&cli.IntFlag{Name: "k", Value: 10, Usage: "rank `N` commands per query", Destination: &opts.K},
		&cli.StringFlag{Name: "mode", Value: "semantic,keyword,hybrid,fused,learned," + baselineMode, Usage: "comma-separated `MODES`: semantic, keyword, hybrid, fused, learned, " + baselineMode + " (baseline)", Destination: &opts.Modes},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object per mode", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.StringFlag{Name: "misses", Usage: "write each missed request (expected command not first) per mode to JSON Lines `FILE`", Destination: &opts.Misses},
		&cli.BoolFlag{Name: "compare", Usage: "compare every mode with the baseline mode on the same requests (paired sign test)", Destination: &opts.Compare},
		&cli.StringFlag{Name: "baseline", Usage: "the `MODE` --compare pairs the others with (default: the first mode given; implies --compare)", Destination: &opts.Baseline},
		&cli.StringFlag{Name: "fused-weights", Usage: "fused mode's weights as `JSON` (e.g. {\"page\": 0.5}; fields left out keep their defaults): for tuning on a train split", Destination: &opts.FusedWeights},
		&cli.StringFlag{Name: "learned-weights", Usage: "learned mode's weights from JSON `FILE` ({\"feature\": weight}): for tuning on a train split", Destination: &opts.LearnedWeights},
		&cli.StringFlag{Name: "features", Usage: "write learned mode's candidates and their features per request to JSON Lines `FILE` (what scripts/research/learn-ranker.py fits)", Destination: &opts.Features},
		&cli.StringFlag{Name: "adapter", Usage: "score learned mode with the query adapter in `FILE` in place of the reranker's own (make adapter-train)", Destination: &opts.Adapter},
		&cli.StringFlag{Name: "vectors", Usage: "write each request's embedding to JSON Lines `FILE` (what scripts/research/train-adapter.py fits)", Destination: &opts.Vectors},
		&cli.StringFlag{Name: "outcomes", Usage: "write every request's outcome per mode (rank, needed options found, flag shown) to JSON Lines `FILE` (scripts/research/paired-outcomes.py pairs two)", Destination: &opts.Outcomes},
		&cli.BoolFlag{Name: "no-option-rank", Usage: "answer without the option ranker (the matches in the command ranking's order): the flag figures' baseline", Destination: &opts.NoOptionRank},
		&cli.StringFlag{Name: "option-features", Usage: "write the option ranker's features of each request's expected command's records to JSON Lines `FILE` (what scripts/research/learn-options.py fits; train requests only)", Destination: &opts.OptionFeatures},
		&cli.BoolFlag{Name: "page-examples", Usage: "with --option-features: add every indexed page's examples as requests (the example's description, needing the options its line uses)", Destination: &opts.PageExamples},
		&cli.StringFlag{Name: "option-weights", Usage: "the option ranker's weights from JSON `FILE` ({\"features\": {...}, \"margin\": M, \"max\": N}): for tuning on a train split", Destination: &opts.OptionWeights},
		&cli.StringFlag{Name: "distro", Usage: "evaluate the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
	}
}

// optionRanker sets s's option ranker as asked (--no-option-rank,
// --option-weights) and writes --option-features.
func optionRanker(ctx context.Context, s *search.Searcher, opts *EvalOptions, queries []evaluate.EvalQuery) error {
	s.NoOptionRank = opts.NoOptionRank
	if opts.OptionWeights != "" {
		w, err := optrank.ReadWeights(opts.OptionWeights)
		if err != nil {
			return cmdutil.UsageError("--option-weights: %v", err)
		}
		s.Options = &w
	}
	if opts.OptionFeatures == "" {
		return nil
	}
	return writeOptionFeatures(ctx, *s, queries, opts.OptionFeatures, opts.PageExamples)
}
