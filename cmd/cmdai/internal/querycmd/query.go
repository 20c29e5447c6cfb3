// Package querycmd is `cmdai index query` and `index eval`: answering
// requests from an index, and measuring how well it answers. Each command
// parses its flags, makes one call into search, and prints.
package querycmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/clix"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// QueryOptions are the inputs of `cmdai index query`.
type QueryOptions struct {
	*cmdutil.Factory
	Request       string
	K             int
	JSON          bool
	Context       bool
	ContextTokens int
	Distro        string
	Mode          string
	Chroma        cmdutil.ChromaOptions
	Model         cmdutil.ModelOptions
	NoServe       bool
}

// NewCmdQuery is `cmdai index query`.
func NewCmdQuery(f *cmdutil.Factory) *cli.Command {
	opts := &QueryOptions{Factory: f}
	flags := []cli.Flag{
		&cli.IntFlag{Name: "k", Aliases: []string{"n"}, Value: 5, Usage: "return the `N` best commands", Destination: &opts.K},
		&cli.BoolFlag{Name: "json", Usage: "print the results as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "context", Usage: "print the COMMAND DOCUMENTATION block for an assistant's prompt", Destination: &opts.Context},
		&cli.IntFlag{Name: "max-tokens", Value: search.DefaultContextTokens, Usage: "token budget of --context", Destination: &opts.ContextTokens},
		&cli.StringFlag{Name: "distro", Usage: "query the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.StringFlag{Name: "mode", Value: string(search.ModeSemantic), Usage: "`MODE`: semantic (embeddings), keyword (BM25 and command names) or hybrid (both, fused)", EnvVars: []string{"CMDAI_QUERY_MODE"}, Destination: &opts.Mode},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "query",
		Usage:     "find the commands that do what you describe",
		UsageText: `cmdai index query "<what you want to do>" [-k 5] [--json] [--context]`,
		Description: `Embeds the request and returns the best commands, each with the sections
and options that matched and their scores (cosine similarity).

EXAMPLES:
   $ cmdai index query "find files modified in the last day"
   $ cmdai index query "count lines in a file" -k 3 --json
   $ cmdai index query "compress a directory" --context --max-tokens 600`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			opts.Request = strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if opts.Request == "" {
				return cmdutil.UsageError("say what you want to do: cmdai index query \"find files modified today\"")
			}
			if opts.K <= 0 {
				return cmdutil.UsageError("-k must be 1 or more, not %d", opts.K)
			}
			if opts.ContextTokens <= 0 {
				return cmdutil.UsageError("--max-tokens must be 1 or more, not %d", opts.ContextTokens)
			}
			if _, err := search.ParseMode(opts.Mode); err != nil {
				return cmdutil.UsageError("--mode: %v", err)
			}
			if err := clix.FirstErr(cmdutil.CheckDistroFlag(opts.Distro), cmdutil.CheckModelFlags(opts.Model)); err != nil {
				return err
			}
			// The collection decides the model variant unless one is asked for.
			if !c.IsSet("model-variant") {
				opts.Model.Variant = ""
			}
			return runQuery(c.Context, opts)
		},
	}
}

// QueryResult is what `query --json` prints (serve answers the same).
type QueryResult = serve.QueryResult

func runQuery(ctx context.Context, opts *QueryOptions) error {
	if res, ok, err := queryThroughServe(ctx, opts); ok {
		if err != nil {
			return err
		}
		return printQuery(opts, res)
	}
	info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, opts.Chroma)
	if err != nil {
		return err
	}
	defer conn.Close()
	mode, err := search.ParseMode(opts.Mode)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	s, closeS, err := OpenSearcher(ctx, opts.Factory, conn, info, opts.Model, mode != search.ModeSemantic)
	if err != nil {
		return err
	}
	defer closeS()
	res, err := Answer(ctx, s, opts.Request, opts.K, mode)
	if err != nil {
		return err
	}
	return printQuery(opts, res)
}

// Answer runs one search and times it: what one-shot queries and serve
// answer alike.
func Answer(ctx context.Context, s search.Searcher, request string, k int, mode search.Mode) (QueryResult, error) {
	start := time.Now()
	hits, err := s.Search(ctx, request, k, mode)
	if err != nil {
		return QueryResult{}, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	return QueryResult{Request: request, Collection: s.Coll.Name(), Commands: hits, Millis: ms}, nil
}

// printQuery prints a result as plain text, --context or --json.
func printQuery(opts *QueryOptions, res QueryResult) error {
	hits := res.Commands
	switch {
	case opts.Context:
		fmt.Fprint(opts.IO.Out, search.RenderContext(hits, opts.ContextTokens))
	case opts.JSON:
		return json.NewEncoder(opts.IO.Out).Encode(res)
	default:
		for i, h := range hits {
			fmt.Fprintf(opts.IO.Out, "%d. %s  (%.3f)  %s\n", i+1, h.Command, h.Score, h.Description)
			for j, m := range h.Matches {
				if j == 3 {
					break
				}
				where := m.Section
				if m.Option != "" {
					where += " " + m.Option
				}
				fmt.Fprintf(opts.IO.Out, "     %.3f  %s\n", m.Score, where)
			}
		}
	}
	return nil
}
