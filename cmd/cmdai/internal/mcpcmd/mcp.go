// Package mcpcmd is `cmdai mcp`: the index's search, documentation and
// status as a Model Context Protocol server on stdin and stdout, for AI
// agents. It parses flags, builds the answer.Answerer the tools ask (a
// running serve per call, else the index held in this process) and runs
// mcpserver over it.
package mcpcmd

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/serve/mcpserver"
)

// Options are the inputs of `cmdai mcp`.
type Options struct {
	*cmdutil.Factory
	Distro string
	// KeepOpen is how long the index stays open after the last call.
	KeepOpen time.Duration
	// NoServe answers every call in this process even when serve runs.
	NoServe bool
	Chroma  cmdutil.ChromaOptions
	Model   cmdutil.ModelOptions
	// Transport is stdio in use; tests may give another.
	Transport mcp.Transport
}

// DefaultKeepOpen: an agent asks in bursts; between them, `index
// refresh` or `init` may need the private server's data directory.
const DefaultKeepOpen = 5 * time.Minute

// NewCmdMCP is `cmdai mcp`. runF, when not nil, is run with the checked
// options instead of Run (tests see what the flags gave).
func NewCmdMCP(f *cmdutil.Factory, runF func(*Options) error) *cli.Command {
	opts := &Options{Factory: f}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "distro", Usage: "answer from the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.DurationFlag{Name: "keep-open", Value: DefaultKeepOpen, Usage: "close the index (and stop the private Chroma server, freeing its data for other cmdai commands) after `DURATION` without a call; the next call opens it again (0: keep it open for the whole session)", Destination: &opts.KeepOpen},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.RerankFlags(&opts.Model.Rerank)...)
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the index to AI agents as a Model Context Protocol server on stdio",
		UsageText: "cmdai mcp [--distro ID] [--chroma-url URL]",
		Description: `Speaks MCP (JSON-RPC) on stdin and stdout, one message per line, until
the client closes stdin; logs go to stderr. A line that is no JSON-RPC
message (or is over 4 MiB) gets a JSON-RPC error, and the session goes on. An MCP client starts it. Tools:
   search_commands  the commands for a task (query, k, mode), a few lines each
   command_docs     one command's summary, synopsis, options, examples, or
                    one option's text (command, option, section, max_tokens)
   explain_command  a shell command line checked word by word against the
                    index's option records (line): ok or NOT OK first
   index_status     which index answers, its counts, model and build time
Each call goes to a running "cmdai serve" that holds the index asked for
(checked per call: serve may start or stop during a session), else the
index is opened in this process on the first call that needs it and kept
until --keep-open passes without a call, or until a "cmdai serve" starts
on the same data: mcp then closes its index (freeing the data serve waits
for) and the next calls wait for serve and go through it. When Chroma
cannot be started or reached, search_commands answers keyword-only from
the keyword index on disk (none: from the live pages of the commands it
names), command_docs from the keyword index or the command's live man page or
--help, and explain_command from the keyword index, their first line
saying so. A tool that cannot answer (no index, no
model) gives an error saying what to run, and the server keeps serving.

EXAMPLES:
   $ claude mcp add cmdai -- cmdai mcp
   $ cmdai mcp --distro debian-12`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.NoArgs(c, "an MCP client sends its requests on stdin"); err != nil {
				return err
			}
			if opts.KeepOpen < 0 {
				return cmdutil.UsageError("--keep-open must be 0 (the whole session) or more, not %v", opts.KeepOpen)
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
			return Run(c.Context, opts)
		},
	}
}

// Run serves until the client goes or ctx ends, then closes the index
// (and stops the private Chroma server, if it started one).
func Run(ctx context.Context, opts *Options) error {
	cmdutil.AbsPaths(&opts.Chroma, &opts.Model)
	ans, closeAns := NewAnswerer(ctx, opts)
	defer closeAns()
	t := opts.Transport
	if t == nil {
		// a bad line gets its JSON-RPC error and the session goes on
		t = &mcpserver.StdioTransport{In: os.Stdin, Out: os.Stdout,
			Logf: func(format string, a ...any) { fmt.Fprintf(opts.IO.ErrOut, "cmdai mcp: "+format+"\n", a...) }}
	}
	err := mcpserver.New(ans, opts.Version).Run(ctx, t)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("MCP session: %w", err)
	}
	return nil
}
