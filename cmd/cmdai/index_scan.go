package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/build/pages"
	"github.com/cmdai/cmdai/distro"
)

// ScanOptions are the inputs of `cmdai index scan`.
type ScanOptions struct {
	IO           *IOStreams
	JSON         bool
	Stats        bool
	Commands     []string
	Distro       string
	Lang         string
	HelpFallback bool
	Parallel     int
	BatchMode    bool

	// Seams for tests: nil means $PATH, the system man path and the
	// machine's own distribution.
	PathDirs     []string
	ManPath      []string
	DetectDistro func(context.Context) (distro.Info, error)
}

func newScanCommand(f *Factory, runF func(context.Context, *ScanOptions) error) *cli.Command {
	opts := &ScanOptions{IO: f.IO}
	return &cli.Command{
		Name:      "scan",
		Usage:     "dry run: show what would be indexed from this machine",
		UsageText: "cmdai index scan [--json] [--stats] [--command NAME]... [--distro ID]",
		Description: `Walks $PATH, finds each command's man page the way man-db does, parses it
natively and cuts it into the chunks "cmdai index init" would embed.
Nothing is written. Pages that fail are listed with the reason; the scan
goes on.

With --json, prints one JSON object per line (JSON Lines): for each
command {"type":"command","command","path","status","source","man_page",
"man_section","alias_of","aliases","description","sections","options",
"examples","chunks":[{"id","text","tokens","metadata"}],"error"}, and with
--stats a last {"type":"stats",...} line. status is one of parsed, alias,
no_man_page, failed, denied. The format is documented in README.md.

EXAMPLES:
   $ cmdai index scan --stats
   $ cmdai index scan --command grep --command tar
   $ cmdai index scan --json | jq -c 'select(.status=="failed") | {command, error}'
   $ cmdai index scan --distro ubuntu-24.04 --json --stats > scan.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per command (JSON Lines)", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
			&cli.BoolFlag{Name: "stats", Usage: "print totals and timings at the end", Destination: &opts.Stats},
			&cli.StringSliceFlag{Name: "command", Usage: "only scan `NAME` (repeatable)"},
			&cli.StringFlag{Name: "distro", Usage: "distribution `ID` to label records with (e.g. debian-12); default: detected", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
			&cli.StringFlag{Name: "lang", Usage: "prefer man pages in `LANG` (e.g. de, fr); English otherwise", EnvVars: []string{"CMDAI_LANG"}, Destination: &opts.Lang},
			&cli.BoolFlag{Name: "help-fallback", Usage: "run \"CMD --help\" (sandboxed, with a deny list) for commands without a man page", EnvVars: []string{"CMDAI_HELP_FALLBACK"}, Destination: &opts.HelpFallback},
			&cli.IntFlag{Name: "parallel", Aliases: []string{"j"}, Usage: "run `N` workers in parallel (0: one per CPU)", EnvVars: []string{"CMDAI_PARALLEL"}, Destination: &opts.Parallel},
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if err := firstErr(noArgs(c, "name commands with --command NAME"), checkDistroFlag(opts.Distro)); err != nil {
				return err
			}
			if opts.Parallel < 0 {
				return usageError("--parallel must be 0 (one per CPU) or more, not %d", opts.Parallel)
			}
			var err error
			if opts.Commands, err = noEmptyElements(c, "command"); err != nil {
				return err
			}
			opts.BatchMode = c.Bool("batch-mode")
			if runF != nil {
				return runF(c.Context, opts)
			}
			return runScan(c.Context, opts)
		},
	}
}

// resolveDistro applies --distro or detects this machine's distribution.
func resolveDistro(ctx context.Context, id string, detect func(context.Context) (distro.Info, error)) (distro.Info, error) {
	if id != "" {
		info, err := distro.Parse(id)
		if err != nil {
			return info, withCode(ExitUsage, fmt.Errorf("--distro: %w", err))
		}
		return info, nil
	}
	if detect == nil {
		detect = distro.Detect
	}
	info, err := detect(ctx)
	if err != nil {
		return info, fmt.Errorf("detect distribution: %w (pass --distro ID, e.g. --distro debian-12)", err)
	}
	if err := distro.ValidCollectionName(info.CollectionName()); err != nil {
		return info, fmt.Errorf("detected distribution %q gives no valid collection name: %w (pass --distro ID)", info.ID, err)
	}
	return info, nil
}

func runScan(ctx context.Context, opts *ScanOptions) error {
	info, err := resolveDistro(ctx, opts.Distro, opts.DetectDistro)
	if err != nil {
		return err
	}
	popts := pages.Options{
		PathDirs:     opts.PathDirs,
		ManPath:      opts.ManPath,
		Lang:         opts.Lang,
		Commands:     opts.Commands,
		HelpFallback: opts.HelpFallback,
		Parallel:     opts.Parallel,
		Distro:       info,
	}

	var p scanPrinter
	if opts.JSON {
		p = &jsonScanPrinter{enc: json.NewEncoder(opts.IO.Out)}
	} else {
		p = &textScanPrinter{out: opts.IO.Out, detailed: len(opts.Commands) > 0, info: info}
	}
	// A bar only for a human at a terminal: JSON streams and CI logs
	// stay clean.
	if !opts.JSON && !opts.BatchMode && opts.IO.ErrTTY {
		var bar *progressbar.ProgressBar
		popts.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(opts.IO.ErrOut),
					progressbar.OptionSetDescription("parsing man pages"), progressbar.OptionShowCount(),
					progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100e6))
			}
			_ = bar.Set(done)
			if done == total {
				_ = bar.Finish()
			}
		}
	}
	st, err := pages.Run(ctx, popts, p.Command)
	if err != nil {
		if errors.Is(err, pages.ErrUnknownCommand) {
			return withCode(ExitUsage, err)
		}
		return err
	}
	if err := p.Done(); err != nil {
		return err
	}
	if opts.Stats {
		return p.Stats(st)
	}
	return nil
}

// scanPrinter renders scan results; the run function is the same for
// humans and machines.
type scanPrinter interface {
	Command(pages.Result) error
	Done() error
	Stats(pages.Stats) error
}

type jsonScanPrinter struct{ enc *json.Encoder }

func (p *jsonScanPrinter) Command(r pages.Result) error {
	return p.enc.Encode(struct {
		Type string `json:"type"`
		pages.Result
	}{"command", r})
}

func (p *jsonScanPrinter) Done() error { return nil }

func (p *jsonScanPrinter) Stats(st pages.Stats) error {
	return p.enc.Encode(struct {
		Type string `json:"type"`
		pages.Stats
	}{"stats", st})
}

type textScanPrinter struct {
	out      io.Writer
	detailed bool
	info     distro.Info
	rows     []pages.Result
}

func (p *textScanPrinter) Command(r pages.Result) error {
	if p.detailed {
		return printDetailed(p.out, r)
	}
	r.Chunks = r.Chunks[:len(r.Chunks):len(r.Chunks)] // keep the count only
	p.rows = append(p.rows, r)
	return nil
}

func (p *textScanPrinter) Done() error {
	if p.detailed {
		return nil
	}
	tw := tabwriter.NewWriter(p.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\tSTATUS\tSECTION\tOPTIONS\tCHUNKS\tPATH\tMAN PAGE")
	for _, r := range p.rows {
		status := r.Status
		if r.AliasOf != "" {
			status = "alias of " + r.AliasOf
		}
		if r.Source == pages.SourceHelp {
			status += " (--help)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Command, status, dash(r.ManSection), r.Options, len(r.Chunks), r.Path, dash(r.ManPage))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// the table says which failed; why needs a line of its own (an alias
	// shares its page's reason)
	for _, r := range p.rows {
		if r.Status == pages.StatusFailed && r.AliasOf == "" {
			fmt.Fprintf(p.out, "failed: %s (%s): %s\n", r.Command, dash(r.ManPage), r.Error)
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printDetailed(w io.Writer, r pages.Result) error {
	fmt.Fprintf(w, "%s  %s\n", r.Command, r.Path)
	fmt.Fprintf(w, "  status:    %s\n", r.Status)
	if r.AliasOf != "" {
		fmt.Fprintf(w, "  alias of:  %s (same man page)\n", r.AliasOf)
	}
	if r.ManPage != "" {
		fmt.Fprintf(w, "  man page:  %s (section %s)\n", r.ManPage, r.ManSection)
	}
	if r.Source == pages.SourceHelp {
		fmt.Fprintf(w, "  source:    %s --help\n", r.Path)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "  error:     %s\n", r.Error)
	}
	if r.Description != "" {
		fmt.Fprintf(w, "  summary:   %s\n", r.Description)
	}
	if len(r.Aliases) > 0 {
		fmt.Fprintf(w, "  aliases:   %s\n", strings.Join(r.Aliases, ", "))
	}
	if len(r.Sections) > 0 {
		fmt.Fprintf(w, "  sections:  %s\n", strings.Join(r.Sections, ", "))
	}
	if r.Status == pages.StatusParsed {
		fmt.Fprintf(w, "  options:   %d\n  examples:  %d\n  chunks:    %d\n", r.Options, r.Examples, len(r.Chunks))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range r.Chunks {
			fmt.Fprintf(tw, "    %s\t%v\t%d tokens\n", c.ID, c.Metadata.Kind, c.Tokens)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func (p *textScanPrinter) Stats(st pages.Stats) error {
	w := p.out
	fmt.Fprintf(w, "\ndistribution:      %s (collection %s)\n", p.info.ID, p.info.CollectionName())
	fmt.Fprintf(w, "commands on PATH:  %d\n", st.CommandsSeen)
	fmt.Fprintf(w, "  with a man page: %d\n", st.WithManPage)
	fmt.Fprintf(w, "  parsed:          %d (%d man pages, %d via --help)\n", st.Parsed, st.ManPages, st.FromHelp)
	fmt.Fprintf(w, "  aliases:         %d (share another command's page)\n", st.Aliases)
	fmt.Fprintf(w, "  no man page:     %d\n", st.NoManPage)
	if st.Denied > 0 {
		fmt.Fprintf(w, "  denied:          %d (never run by --help-fallback)\n", st.Denied)
	}
	fmt.Fprintf(w, "  failed:          %d\n", st.Failed)
	reasons := make([]string, 0, len(st.Failures))
	for k := range st.Failures {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(w, "    %-15s %d\n", k+":", st.Failures[k])
	}
	fmt.Fprintf(w, "chunks:            %d\n", st.Chunks)
	fmt.Fprintf(w, "time:              scan %s, parse %s (%.0f pages/s), total %s\n", st.ScanTime, st.ParseTime, st.PagesPerSec, st.Total)
	if len(st.Problems) > 0 {
		fmt.Fprintf(w, "problems:          %d (use --json --stats for the list)\n", len(st.Problems))
		for i, pr := range st.Problems {
			if i == 3 {
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", pr.Path, pr.Err)
		}
	}
	return nil
}
