package initcmd

import (
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
)

// buildFlags are the flags init and refresh share, declared once and
// bound to the options both fill, so that a name, an alias, a default or
// a CMDAI_* variable (and with it the configuration-file key) cannot
// drift between the two. Each command places them among its own flags,
// in the order its --help has always shown.
type buildFlags struct {
	BatchMode, JSON, Distro, Lang, EmbedWorkers, Docs, ProseBudget, EmbedTokens cli.Flag
	// Backend is the model's and Chroma's flags, last in both.
	Backend []cli.Flag
}

// buildUsage is the help of the shared flags each command words its own
// way: refresh's points back at init's.
type buildUsage struct {
	batchMode, docs, proseBudget string
}

func newBuildFlags(opts *InitOptions, u buildUsage) buildFlags {
	return buildFlags{
		BatchMode:    &cli.BoolFlag{Name: "batch-mode", Usage: u.batchMode, EnvVars: []string{"CMDAI_BATCH_MODE"}, Destination: &opts.BatchMode},
		JSON:         &cli.BoolFlag{Name: "json", Usage: "print the summary as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		Distro:       &cli.StringFlag{Name: "distro", Usage: "distribution `ID` (default: detected)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		Lang:         &cli.StringFlag{Name: "lang", Usage: "prefer man pages in `LANG`", EnvVars: []string{"CMDAI_LANG"}, Destination: &opts.Lang},
		EmbedWorkers: &cli.IntFlag{Name: "embed-workers", Usage: "`N` embedders running at once, one thread each (0: one per CPU)", EnvVars: []string{"CMDAI_EMBED_WORKERS"}, Destination: &opts.Workers},
		// read in the action with clix.ExistingDirs (checked, not bound)
		Docs:        &cli.StringSliceFlag{Name: "docs", Usage: u.docs},
		ProseBudget: &cli.IntFlag{Name: "prose-budget", Value: builder.DefaultProseBudget, Usage: u.proseBudget, EnvVars: []string{"CMDAI_PROSE_BUDGET"}, Destination: &opts.ProseBudget},
		EmbedTokens: &cli.IntFlag{Name: "embed-tokens", Value: builder.DefaultEmbedTokens, Usage: "embed the first `N` word pieces of each option, example and section chunk (the record keeps all of its text; summaries whole; 0: all of it, slower)", EnvVars: []string{"CMDAI_EMBED_TOKENS"}, Destination: &opts.EmbedTokens},
		Backend:     append(cmdutil.ModelFlags(&opts.Model), cmdutil.ChromaFlags(&opts.Chroma)...),
	}
}

// takeBuildFlags reads and checks what init and refresh share: --docs
// (existing directories), the build flags' checks, and --batch-mode
// given before or after the command.
func takeBuildFlags(c *cli.Context, opts *InitOptions) error {
	var err error
	if opts.DocsDirs, err = clix.ExistingDirs(c, "docs"); err != nil {
		return err
	}
	if err := checkBuildFlags(c, opts); err != nil {
		return err
	}
	opts.BatchMode = opts.BatchMode || clix.GlobalBool(c, "batch-mode")
	return nil
}

// checkBuildFlags holds the checks init and refresh share.
func checkBuildFlags(c *cli.Context, opts *InitOptions) error {
	return clix.FirstErr(
		clix.NoArgs(c, "name commands with --command NAME"),
		cmdutil.CheckDistroFlag(opts.Distro),
		cmdutil.CheckModelFlags(opts.Model),
		clix.NotNegative("parallel", opts.Parallel),
		clix.NotNegative("embed-workers", opts.Workers),
		clix.NotNegative("prose-budget", opts.ProseBudget),
		clix.NotNegative("embed-tokens", opts.EmbedTokens),
	)
}
