// Package statuscmd is `cmdai index status`: what the index holds and how
// stale it is. It parses its flags, makes one call on the answering layer
// (a running serve, else answer.OneShot, see cmdutil.ServeOrHere), and
// prints.
package statuscmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search/kwstore"
)

// StatusOptions are the inputs of `cmdai index status`.
type StatusOptions struct {
	*cmdutil.Factory
	Detailed bool
	JSON     bool
	// Verify checks every record, not a sample (answer.CheckIndex), in
	// this process, and says how long it took.
	Verify    bool
	Distro    string
	Chroma    cmdutil.ChromaOptions
	NoServe   bool
	AutoServe cmdutil.AutoServeOptions
	// Seams for tests.
	PathDirs, ManPath []string
}

// IndexStatus is what `index status --json` prints (serve answers the
// same).
type IndexStatus = answer.IndexStatus

// NewCmdStatus is `cmdai index status`; runF, when not nil, replaces the
// run function (tests see the parsed options).
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cli.Command {
	opts := &StatusOptions{Factory: f}
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "detailed", Usage: "also list the stale commands and the index's metadata", Destination: &opts.Detailed},
		&cli.BoolFlag{Name: "json", Usage: "print the status as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "verify", Usage: "check every record against its authenticator, not a sample of " + fmt.Sprint(answer.StatusSample) + " (seconds on a large index; in this process)", Destination: &opts.Verify},
		&cli.StringFlag{Name: "distro", Usage: "this machine's distribution `ID` (default: detected)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
	}
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.AutoServeFlags(&opts.AutoServe)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "status",
		Usage:     "show the indexes, their model, age, staleness and the server's health",
		UsageText: "cmdai index status [--detailed] [--verify] [--json]",
		Description: `Lists cmdai's collections with their record counts, model and build time,
and, for this distribution's, how many installed commands changed since it
was built (executable or man page), were installed or were removed. It
checks the index's sealed metadata and a sample of its records against
their authenticators; --verify checks every record (as doctor does).
Exit code 3 when this distribution has no index.

EXAMPLES:
   $ cmdai index status
   $ cmdai index status --detailed --json | jq .collections`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.FirstErr(clix.NoArgs(c, ""), cmdutil.CheckDistroFlag(opts.Distro)); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return RunStatus(c.Context, opts)
		},
	}
}

// RunStatus prints the indexes on the server and this one's staleness,
// asking a running serve when there is one (the same answer): one call
// on the answering layer.
func RunStatus(ctx context.Context, opts *StatusOptions) error {
	env, envOK := scanEnv(opts.getenv())
	a := opts.answerer(envOK)
	start := time.Now()
	st, err := a.Status(ctx, answer.StatusRequest{Detailed: opts.Detailed, Verify: opts.Verify, Env: &env})
	if err != nil {
		return err
	}
	took := time.Since(start)
	if opts.JSON {
		if err := jsonout.Encode(opts.IO.Out, st); err != nil {
			return err
		}
	} else {
		printStatus(opts, st)
		if opts.Verify {
			printVerified(opts.IO.Out, st, took)
		}
		printServe(ctx, opts, a.Started)
	}
	for _, c := range st.Collections {
		if c.Current {
			return nil
		}
	}
	if dir, err := config.KeywordDir(opts.Getenv); err == nil {
		if path, ok := kwstore.SavedPath(dir, st.Current); ok {
			// this machine answered from it, and `index clear` forgets that
			return cmdutil.WithCode(cmdutil.ExitNoIndex, fmt.Errorf("DELETED: the index %s is not on the Chroma server, though this machine answered from it (its keyword index %s is still here): it was deleted outside cmdai, by anyone who reaches the server (`cmdai doctor` says who can reach the private one); build it again with `cmdai index init`, or import it again", st.Current, path))
		}
	}
	return cmdutil.WithCode(cmdutil.ExitNoIndex, fmt.Errorf("no index for this distribution (%s): build it with `cmdai index init`", st.Current))
}

// printVerified says that --verify checked every record of this
// distribution's index, and how long it took (failures are printed with
// the collection).
func printVerified(out io.Writer, st IndexStatus, took time.Duration) {
	for _, c := range st.Collections {
		if v := c.Verification; c.Current && v != nil && v.OK() {
			fmt.Fprintf(out, "  verified: all %d records match their authenticators (status took %.1f s)\n", v.Records, took.Seconds())
		}
	}
}

// printServe says which serve answers this data home's read commands:
// the one this status started in the background (pid started), else
// the one running, else none (and whether the next read starts one).
func printServe(ctx context.Context, opts *StatusOptions, started int) {
	line := fmt.Sprintf("started in the background now (pid %d): the next read commands answer through it (`cmdai serve --stop` stops it)", started)
	if started == 0 {
		line = opts.ServeState(ctx, opts.AutoServe.For(opts.Distro))
	}
	fmt.Fprintf(opts.IO.Out, "serve:   %s\n", line)
}

// getenv is the Factory's, os.Getenv when it has none.
func (opts *StatusOptions) getenv() func(string) string {
	if opts.Getenv != nil {
		return opts.Getenv
	}
	return os.Getenv
}

func printStatus(opts *StatusOptions, st IndexStatus) {
	out := opts.IO.Out
	health := "healthy"
	if !st.Server.Healthy {
		health = "NOT answering"
	}
	fmt.Fprintf(out, "chroma:  %s (%s, version %s) %s\n", st.Server.URL, st.Server.Mode, st.Server.Version, health)
	if len(st.Collections) == 0 {
		fmt.Fprintln(out, "no cmdai indexes on this server")
	}
	for _, c := range st.Collections {
		if c.Temporary {
			fmt.Fprintf(out, "  %s: %d records, temporary (left by an interrupted build or import: the next `cmdai index init` or import resumes or removes it)\n", c.Name, c.Records)
			continue
		}
		mark := " "
		if c.Current {
			mark = "*"
		}
		state := "complete"
		if v := c.Verification; v != nil && v.MetadataFailed() {
			state = "metadata NOT VERIFIED (below)"
		} else if !c.Meta.Complete {
			state = "INCOMPLETE (interrupted: run `cmdai index init` to finish)"
		}
		age := "?"
		if !c.Meta.BuiltAt.IsZero() {
			age = time.Since(c.Meta.BuiltAt).Round(time.Minute).String() + " ago"
		}
		fmt.Fprintf(out, "%s %s: %d records, %d commands, %s %s, built %s (%s), %s\n", mark, c.Name, c.Records, c.Meta.Commands,
			c.Meta.Model, c.Meta.ModelVariant, c.Meta.BuiltAt.Format(time.RFC3339), age, state)
		if s := c.Stale; s != nil {
			fmt.Fprintf(out, "  %s", s.Summary())
			if s.Stale > 0 {
				fmt.Fprint(out, "; run `cmdai index refresh` to update")
			}
			fmt.Fprintln(out)
			if opts.Detailed && len(s.Names) > 0 {
				names := s.Names
				more := ""
				if len(names) > 60 {
					names, more = names[:60], fmt.Sprintf(" ... and %d more (--json lists all)", len(s.Names)-60)
				}
				fmt.Fprintf(out, "  (~ changed, + new, - removed) %s%s\n", strings.Join(names, " "), more)
			}
		}
		if opts.Detailed {
			fmt.Fprintf(out, "  model sha256 %s, %d dims, schema %d, tool %s, distro %s/%s\n", c.Meta.ModelSHA256, c.Meta.Dims, c.Meta.SchemaVersion, c.Meta.ToolVersion, c.Meta.OS, c.Meta.Distro)
			budget := "all prose"
			if c.Meta.ProseBudget > 0 {
				budget = fmt.Sprintf("%d word pieces of prose per page", c.Meta.ProseBudget)
			}
			fmt.Fprintf(out, "  embedded: summaries, options and examples of every page; %s\n", budget)
		}
		if v := c.Verification; v != nil && !v.OK() {
			fmt.Fprintf(out, "  %s\n", v.Summary())
		}
		switch {
		case c.Meta.Unsigned:
			fmt.Fprintf(out, "  UNSIGNED: imported without a verified signature (%s): its records are only as trustworthy as that file; `cmdai index init --force` rebuilds it here\n", c.Meta.ImportedFrom)
		case c.Meta.ImportedFrom != "" && opts.Detailed:
			fmt.Fprintf(out, "  origin:   %s\n", c.Meta.ImportedFrom)
		}
		printFailures(out, c.Meta.Failed, opts.Detailed)
	}
}

// printFailures lists the commands whose page could not be indexed, with
// why (all of them with --detailed, a count otherwise).
func printFailures(out io.Writer, failed map[string]string, detailed bool) {
	if len(failed) == 0 {
		return
	}
	if !detailed {
		fmt.Fprintf(out, "  failed:   %d pages could not be indexed (--detailed lists them)\n", len(failed))
		return
	}
	fmt.Fprintf(out, "  failed:   %d pages could not be indexed (`cmdai index scan --command NAME` shows one again):\n", len(failed))
	names := make([]string, 0, len(failed))
	for n := range failed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(out, "    %s: %s\n", n, failed[n])
	}
}
