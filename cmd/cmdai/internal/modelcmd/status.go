package modelcmd

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
)

// StatusOptions are the inputs of `cmdai model status`.
type StatusOptions struct {
	*cmdutil.Factory
	JSON  bool
	Model cmdutil.ModelOptions
}

func newStatusCommand(f *cmdutil.Factory, runF func(*StatusOptions) error) *cli.Command {
	opts := &StatusOptions{Factory: f}
	return &cli.Command{
		Name:      "status",
		Usage:     "show the installed model, whether its files verify, and the backend in use",
		UsageText: "cmdai model status [--json]",
		Description: `Checks every file of the installed model against its manifest's sha256.
Exits 5 when a file does not verify, 1 when no model is installed.

EXAMPLES:
   $ cmdai model status
   $ cmdai model status --json | jq .verified`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print a JSON object", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		}, cmdutil.ModelFlags(&opts.Model)...),
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.FirstErr(clix.NoArgs(c, ""), cmdutil.CheckModelFlags(opts.Model)); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runStatus(c.Context, opts)
		},
	}
}

func runStatus(_ context.Context, opts *StatusOptions) error {
	dir, err := opts.ResolveModelDir(opts.Model.Dir)
	if err != nil {
		return err
	}
	st, m, verr := embed.Status(dir, opts.Model.Backend, opts.Getenv)
	if opts.JSON {
		if err := jsonout.EncodeIndent(opts.IO.Out, st, "  "); err != nil {
			return err
		}
	} else {
		printStatus(opts, st, m)
	}
	switch {
	case !st.Installed:
		// A missing model is a failure, not "no index yet" (exit 3).
		return cmdutil.WithCode(cmdutil.ExitFailure, verr)
	case !st.Verified:
		return cmdutil.WithCode(cmdutil.ExitVerification, verr)
	}
	return nil
}

func printStatus(opts *StatusOptions, st embed.ModelStatus, m embed.Manifest) {
	w := opts.IO.Out
	fmt.Fprintf(w, "model:     %s (%d dims)\n", embed.ModelName, embed.Dims)
	fmt.Fprintf(w, "directory: %s\n", st.Dir)
	switch {
	case !st.Installed:
		fmt.Fprintf(w, "installed: no\n")
	case st.Verified:
		fmt.Fprintf(w, "installed: yes, every file matches its sha256 (%d ms)\n", st.VerifyMillis)
		fmt.Fprintf(w, "variants:  %v\n", st.Variants)
		fmt.Fprintf(w, "source:    %s\n", st.Source)
		for _, v := range st.Variants {
			fmt.Fprintf(w, "sha256:    %s %s\n", v, m.ModelSHA256(v))
		}
	default:
		fmt.Fprintf(w, "installed: yes, but it does NOT verify\n")
	}
	ort := "not built in (build with `make tools build`)"
	if st.ORTBuiltIn {
		ort = "built in, library not found (run `make tools` or set CMDAI_ORT_LIB_DIR)"
		if st.ORTLibDir != "" {
			ort = "built in, library in " + st.ORTLibDir
		}
	}
	fmt.Fprintf(w, "onnx runtime: %s\n", ort)
	fmt.Fprintf(w, "backend:   %s\n", st.Backend)
}
