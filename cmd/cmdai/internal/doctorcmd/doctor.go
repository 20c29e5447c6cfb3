// Package doctorcmd is `cmdai doctor`: what cmdai needs at run time,
// where it was found, whether it works, and for each missing or broken
// part the command that fixes it. It imports chroma because checking
// Chroma itself (the executable, its version, a server that answers, the
// index's records) is its job; answering and connecting are not.
package doctorcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/termtext"
)

// SchemaVersion is the version of --json's shape: a new key may come
// without a change of it, a key renamed or removed changes it.
const SchemaVersion = 1

// Statuses of a component.
const (
	StatusOK      = "ok"
	StatusMissing = "missing"
	StatusBad     = "bad"
	StatusWarning = "warning" // works, or is not needed yet, but worth a look
)

// Component is one part cmdai needs, as doctor found it. Every key is
// always there (empty when it does not apply), so that scripts can read
// them without checking.
type Component struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Path    string `json:"path"`
	Version string `json:"version"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix"`
	// code is the exit code doctor gives when this part fails (missing
	// or bad); 0 for a part that is never needed (a warning at worst).
	code int
}

// Report is what `cmdai doctor --json` prints.
type Report struct {
	SchemaVersion int         `json:"schema_version"`
	OK            bool        `json:"ok"`
	Components    []Component `json:"components"`
}

// Options are the inputs of `cmdai doctor`.
type Options struct {
	*cmdutil.Factory
	JSON   bool
	Distro string
	Model  cmdutil.ModelOptions
	Chroma cmdutil.ChromaOptions
	// AutoServe: the read commands' settings, to say whether the next one
	// starts a serve (hidden flags; their variable and key apply).
	AutoServe cmdutil.AutoServeOptions
}

// ExitCodesHelp says which exit code doctor gives, in the order the
// parts are checked: the first failing part's.
const exitHelp = `Exits 0 when every part a command needs is in place (warnings
included: an index not built yet is one, so a new install passes), else
with the code of the first part that failed, in this order:
   5  ONNX Runtime missing or does not load, or the model missing or not
      matching its manifest's sha256
   4  the Chroma server not found, of an unsupported release, or
      --chroma-url not answering
   3  this distribution's index present but incomplete or empty`

// NewCmdDoctor is `cmdai doctor`; runF, when not nil, replaces the run
// function (tests see the parsed options).
func NewCmdDoctor(f *cmdutil.Factory, runF func(*Options) error) *cli.Command {
	opts := &Options{Factory: f}
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print a JSON object", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.StringFlag{Name: "distro", Usage: "check the index of distribution `ID` (default: detected)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.RerankerDirFlag(&opts.Model.Rerank.Dir))
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	for _, fl := range cmdutil.AutoServeFlags(&opts.AutoServe) {
		switch fl := fl.(type) {
		case *cli.BoolFlag:
			fl.Hidden = true
		case *cli.DurationFlag:
			fl.Hidden = true
		}
		flags = append(flags, fl)
	}
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check what cmdai needs (ONNX Runtime, tokenizers, model, Chroma and who reaches it, index, data lock, serve, man-db) and say how to fix what is missing",
		UsageText: "cmdai doctor [--json] [--chroma-url URL]",
		Description: `One line per part: what was found, where, its version, and for a part
that is missing or broken the exact command that fixes it. Every probe
is bounded in time. The Chroma server is checked by its --version
(with --chroma-url, by the server's heartbeat), and whether its private
server would run where only you reach it (a network namespace of its
own; a warning when every local user could); the index is read only
when one has been built, from a private server started and stopped as
"cmdai index status" does.

` + exitHelp + `

EXAMPLES:
   $ cmdai doctor
   $ cmdai doctor --json | jq '.components[] | select(.status != "ok")'
   $ cmdai doctor --chroma-url http://127.0.0.1:8000`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.FirstErr(clix.NoArgs(c, ""), cmdutil.CheckModelFlags(opts.Model), cmdutil.CheckDistroFlag(opts.Distro)); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(c.Context, opts)
		},
	}
}

func run(ctx context.Context, opts *Options) error {
	rep := Check(ctx, opts)
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(opts, rep)
	}
	return exitFor(rep)
}

// exitFor is the error, with its exit code, of the first part that
// failed (the components are in exitHelp's order); nil when none did.
func exitFor(rep Report) error {
	for _, c := range rep.Components {
		if failed(c) {
			return cmdutil.WithCode(c.code, fmt.Errorf("doctor: %s is %s: %s", c.Name, c.Status, c.Fix))
		}
	}
	return nil
}

func failed(c Component) bool {
	return c.code != 0 && (c.Status == StatusMissing || c.Status == StatusBad)
}

// Check runs every probe, in the order of exitHelp.
func Check(ctx context.Context, opts *Options) Report {
	ort := checkORT(opts)
	model := checkModel(opts, ort)
	chroma := checkChroma(ctx, opts)
	lock := checkLock(opts)
	comps := []Component{ort, checkTokenizers(), model, checkReranker(opts), chroma, checkIsolation(ctx, opts, chroma), checkIndex(ctx, opts, chroma, lock, model), lock, checkServe(ctx, opts), checkManDB(ctx), checkReleaseKey()}
	rep := Report{SchemaVersion: SchemaVersion, OK: true, Components: comps}
	for _, c := range comps {
		if failed(c) {
			rep.OK = false
		}
	}
	return rep
}

func printReport(opts *Options, rep Report) {
	w := opts.IO.Out
	for _, c := range rep.Components {
		var b strings.Builder
		fmt.Fprintf(&b, "%-8s %-12s", c.Status, c.Name)
		if c.Path != "" {
			b.WriteString(" " + c.Path)
		}
		if c.Version != "" {
			b.WriteString(" (" + c.Version + ")")
		}
		switch {
		case c.Detail != "" && c.Path+c.Version == "":
			b.WriteString(" " + c.Detail)
		case c.Detail != "":
			b.WriteString(": " + c.Detail)
		}
		if c.Fix != "" && c.Status != StatusOK {
			b.WriteString("; fix: " + c.Fix)
		}
		fmt.Fprintln(w, termtext.Clean(b.String()))
	}
	if rep.OK {
		fmt.Fprintln(w, "cmdai doctor: every part cmdai needs is in place")
	} else {
		fmt.Fprintln(w, "cmdai doctor: some parts need the fix above")
	}
}
