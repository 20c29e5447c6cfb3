package scancmd

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/jsonout"
)

// scanPrinter renders scan results; the run function is the same for
// humans and machines.
type scanPrinter interface {
	Command(pages.Result) error
	Done() error
	Stats(pages.Stats) error
}

// jsonScanPrinter writes JSON Lines, each line with its schema version.
type jsonScanPrinter struct{ w io.Writer }

func (p *jsonScanPrinter) Command(r pages.Result) error {
	return jsonout.Encode(p.w, struct {
		Type string `json:"type"`
		pages.Result
	}{"command", r})
}

func (p *jsonScanPrinter) Done() error { return nil }

func (p *jsonScanPrinter) Stats(st pages.Stats) error {
	return jsonout.Encode(p.w, struct {
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
		if r.Cut != "" {
			fmt.Fprintf(p.out, "cut: %s (%s): %s\n", r.Command, dash(r.ManPage), r.Cut)
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
	if r.Parent != "" {
		run := r.Parent + " " + strings.TrimPrefix(r.Command, r.Parent+"-")
		if r.Status == pages.StatusNotSubcommand {
			fmt.Fprintf(w, "  not indexed: its SYNOPSIS does not show `%s`\n", run)
		} else {
			fmt.Fprintf(w, "  subcommand: `%s` (the executable above)\n", run)
		}
	}
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
	if st.Subcommands+st.NotSubcommands > 0 {
		fmt.Fprintf(w, "subcommand pages:  %d (%d more named like one, whose SYNOPSIS shows none)\n", st.Subcommands, st.NotSubcommands)
	}
	reasons := make([]string, 0, len(st.Failures))
	for k := range st.Failures {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(w, "    %-15s %d\n", k+":", st.Failures[k])
	}
	fmt.Fprintf(w, "chunks:            %d\n", st.Chunks)
	fmt.Fprintf(w, "packages:          %d commands owned (%s database, %s)\n", st.PackageOwned, st.PackageDB, st.PackageTime)
	if st.PackageError != "" {
		fmt.Fprintf(w, "  package database unreadable: %s\n", st.PackageError)
	}
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
