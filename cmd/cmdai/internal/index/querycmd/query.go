// Package querycmd is `cmdai index query`, and `cmdai search` (the same
// command under a short name): answering a request from the index. It
// parses its flags, builds an answer.QueryRequest, makes one
// call on the answering layer (a running serve, else answer.OneShot: see
// cmdutil.ServeOrHere) and prints.
package querycmd

import (
	"context"
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
	"github.com/cmdai/cmdai/search/shown"
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
	// Matches and Strict go into search.Request as they are; Full asks
	// for every match with its whole text.
	Matches int
	Full    bool
	Strict  bool
	// Scores adds the scores and sections to the text (--scores,
	// --verbose); Color is --color (termstyle's auto, always, never).
	Scores    bool
	Color     string
	NoServe   bool
	AutoServe cmdutil.AutoServeOptions
	Chroma    cmdutil.ChromaOptions
	Model     cmdutil.ModelOptions
}

// NewCmdQuery is `cmdai index query`; runF, when not nil, replaces the
// run function (tests see the parsed options).
func NewCmdQuery(f *cmdutil.Factory, runF func(*QueryOptions) error) *cli.Command {
	cmd := newCmd(f, runF)
	cmd.Name = "query"
	cmd.UsageText = `cmdai index query "<what you want to do>" [-k 5] [--json] [--context]`
	cmd.Description = description + `

EXAMPLES:
   $ cmdai index query "find files modified in the last day"
   $ cmdai index query "count lines in a file" -k 3 --json
   $ cmdai index query "compress a directory" --context --max-tokens 600`
	return cmd
}

// NewCmdSearch is `cmdai search`: `index query` under the short name a
// person types, the same flags, the same output.
func NewCmdSearch(f *cmdutil.Factory, runF func(*QueryOptions) error) *cli.Command {
	cmd := newCmd(f, runF)
	cmd.Name = "search"
	cmd.UsageText = `cmdai search <what you want to do> [-k 5] [--json] [--context]`
	cmd.Description = description + `

cmdai search is cmdai index query under a shorter name: the same flags
and output. The request needs no quotes unless it holds shell characters.

EXAMPLES:
   $ cmdai search extract a tar.gz archive into a directory
   $ cmdai search "count lines in a file" -k 3 --json
   $ cmdai search "compress a directory" --scores`
	return cmd
}

// verb is how a person calls the command named name.
func verb(name string) string {
	if name == "search" {
		return "cmdai search"
	}
	return "cmdai index query"
}

// description is what query and search say of themselves.
const description = `Embeds the request and returns the best commands: each with its
description, the options that matched as the page spells them with their
first sentence, the examples that matched (their command line), and the
first sentence of other parts of its page that matched (--matches of
them; --full: every one). --scores (or -v) adds the ranking's scores and
the sections matched; --json gives it all, each match's text cut to about
200 bytes, an option as its spelling and text and an example as its text
alone (--full adds their ids, sections and scores), and as many of the
options chosen as fit 4 KB.

On a terminal the answer is coloured (NO_COLOR set or --color=never: not)
and its lines fit its width; through a pipe it is plain, a line per item.

When Chroma cannot be started or reached, the answer comes from the
keyword index on disk (saved by an earlier keyword or hybrid query), or,
with none there, from the installed commands the request names, their
man page or --help read live: a warning on stderr, "degraded": true and
the reason in the JSON, exit 0. --strict makes that exit 4 instead.`

// newCmd is the command query and search are: its flags and action.
func newCmd(f *cmdutil.Factory, runF func(*QueryOptions) error) *cli.Command {
	opts := &QueryOptions{Factory: f}
	flags := []cli.Flag{
		&cli.IntFlag{Name: "k", Aliases: []string{"n"}, Value: 5, Usage: "return the `N` best commands", Destination: &opts.K},
		&cli.BoolFlag{Name: "json", Usage: "print the results as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "context", Usage: "print the COMMAND DOCUMENTATION block for an assistant's prompt", Destination: &opts.Context},
		&cli.IntFlag{Name: "max-tokens", Value: render.DefaultContextTokens, Usage: "token budget of --context: at most `N` tokens", Destination: &opts.ContextTokens},
		&cli.StringFlag{Name: "distro", Usage: "query the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.StringFlag{Name: "mode", Value: string(search.DefaultMode), Usage: "`MODE`: learned (the default: every channel below and priors, weighed as learned on a train split), semantic (embeddings), keyword (BM25 and command names), hybrid (both, fused) or fused (semantic with BM25 over NAME chunks and whole pages, and command names)", EnvVars: []string{"CMDAI_QUERY_MODE"}, Destination: &opts.Mode},
		&cli.IntFlag{Name: "matches", Value: shown.DefaultMatches, Usage: "show the `N` best matching options, examples or passages of each command (default: the options and examples that do what was asked, as many as the option ranker chose and a 4 KB answer holds, the first command the most, else 2; --json: an option's first sentence, else the first 200 bytes; --context chooses its own)", Destination: &opts.Matches},
		&cli.BoolFlag{Name: "full", Usage: "show every matching chunk of each command with its whole text (by default the best --matches; --json cuts each to about 200 bytes)", Destination: &opts.Full},
		&cli.BoolFlag{Name: "strict", Usage: "fail (exit 4) when Chroma cannot be reached, instead of a keyword-only answer from disk", Destination: &opts.Strict},
		&cli.BoolFlag{Name: "scores", Usage: "show the ranking's scores and the sections matched", Destination: &opts.Scores},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "verbose: the scores and sections matched too (as --scores)"},
		&cli.StringFlag{Name: "color", Value: termstyle.Auto, Usage: termstyle.FlagUsage, Destination: &opts.Color},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.RerankFlags(&opts.Model.Rerank)...)
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.AutoServeFlags(&opts.AutoServe)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Usage:        "find the commands that do what you describe",
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			opts.Request = strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if opts.Request == "" {
				return cmdutil.UsageError("say what you want to do: %s \"find files modified today\"", verb(c.Command.Name))
			}
			opts.Scores = opts.Scores || c.Bool("verbose")
			if err := termstyle.CheckMode(opts.Color); err != nil {
				return cmdutil.UsageError("%v", err)
			}
			if opts.K <= 0 {
				return cmdutil.UsageError("-k must be 1 or more, not %d", opts.K)
			}
			if opts.Matches <= 0 {
				return cmdutil.UsageError("--matches must be 1 or more, not %d", opts.Matches)
			}
			if opts.Full && c.IsSet("matches") {
				return cmdutil.UsageError("--full shows every match: leave out --matches %d, or --full", opts.Matches)
			}
			if !c.IsSet("matches") {
				opts.Matches = 0 // the default: as many as the option ranker chose
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
			if runF != nil {
				return runF(opts)
			}
			return runQuery(c.Context, opts, opts.answerer())
		},
	}
}

// QueryResult is what `query --json` prints (serve answers the same).
type QueryResult = answer.QueryResult

// runQuery asks a for the answer, in one call, and prints it.
func runQuery(ctx context.Context, opts *QueryOptions, a answer.Answerer) error {
	q := opts.request()
	text := !opts.JSON && !opts.Context
	// The text shows whole first sentences and examples' command lines,
	// which a match cut to 200 bytes may lack: it asks for every match
	// whole and keeps the best --matches here, in the ranking's order,
	// as serve would (the request serve knows, so any serve answers it).
	q.Full = q.Full || text
	res, err := a.Query(ctx, q)
	if err != nil {
		return err
	}
	switch {
	case text && !opts.Full && opts.Matches == 0:
		res.Commands = shown.Whole(res.Commands) // as many as --json shows
	case text && !opts.Full:
		res.Commands = search.Compact(res.Commands, opts.Matches, -1)
	}
	return printQuery(opts, res)
}

// answerer is who answers the query: a running serve, unless --no-serve,
// another Chroma (--chroma-url, --chroma-data) or another model variant
// or backend is asked for (serve answers with the model it loaded, its
// --model-dir), else this process.
func (opts *QueryOptions) answerer() answer.Answerer {
	here := opts.OneShot(opts.Chroma, opts.Distro, opts.Model)
	return opts.ServeOrHere(here.Degraded(), cmdutil.ServeRuledOut(opts.NoServe, opts.Chroma, opts.Model), opts.AutoServe.For(opts.Distro))
}

// request is the query the options ask for, as serve and the MCP tools
// take it too.
func (opts *QueryOptions) request() answer.QueryRequest {
	return answer.QueryRequest{Request: opts.Request, K: opts.K, Mode: opts.Mode, Distro: opts.Distro,
		Context: opts.Context, Matches: opts.Matches, Full: opts.Full, Strict: opts.Strict}
}

// printQuery prints a result as plain text, --context or --json, and a
// degraded one's warning on stderr (one-shot or from serve alike).
func printQuery(opts *QueryOptions, res QueryResult) error {
	if res.Degraded {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n  (start Chroma or fix --chroma-url for semantic answers; --strict makes this an error)\n", res.DegradedReason)
	}
	switch {
	case opts.Context:
		if res.NoCloseMatch {
			fmt.Fprintln(opts.IO.Out, answer.NoCloseMatchLine)
		}
		fmt.Fprint(opts.IO.Out, render.Context(res.Commands, opts.ContextTokens))
	case opts.JSON:
		return jsonout.Encode(opts.IO.Out, res)
	default:
		w, st, width := opts.IO.Styled(opts.Color, opts.Getenv)
		if len(res.Commands) == 0 {
			fmt.Fprintln(w, st.Dim("No command in the index matches: say it another way, or try --mode keyword."))
		} else if res.NoCloseMatch {
			// first: nothing installed does it, and these are only near
			fmt.Fprintln(w, st.Heading(answer.NoCloseMatchLine))
		}
		readable.Printer{W: w, St: st, Width: width, Scores: opts.Scores}.Answer(render.Entries(res.Commands))
	}
	return nil
}
