package pages

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/scanner/helprun"
	"github.com/cmdai/cmdai/scanner/pkgdb"
)

// process reads, parses and chunks one job's page (or runs --help), and
// returns a Result for the command and one per alias. One page can never
// fail the run: a panic anywhere in that work (a page we have never seen
// trips a parser bug) makes this command's Result failed, with the panic
// and where it happened, and the workers go on with the rest.
func process(ctx context.Context, opts Options, j job) (out []Result) {
	defer func() {
		if v := recover(); v != nil {
			r := Result{Command: j.cmd.Name, Path: j.cmd.Path, Status: StatusFailed, Error: panicReason(v)}
			if j.cmd.Man != nil {
				r.Fingerprint = Fingerprint(j.cmd.Path, j.cmd.Man.Path)
				r.Source, r.ManPage, r.ManSection = SourceMan, j.cmd.Man.Path, j.cmd.Man.Section
			}
			out = withAliases(r, j)
		}
	}()
	return withAliases(processPage(ctx, opts, j), j)
}

// panicFrames is how many of our own frames a panic's reason names: the
// innermost few are enough to find the bug.
const panicFrames = 3

// panicReason describes a recovered panic for a Result's error: the value
// and the innermost frames outside the runtime, e.g. "panic: runtime
// error: slice bounds out of range [3:1] (at manparse.(*chunker).prose
// chunk.go:204, ...)". Called from the deferred function, while the
// panicking frames are still on the stack.
func panicReason(v any) string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs) // skip Callers, panicReason and the deferred func
	frames := runtime.CallersFrames(pcs[:n])
	var at []string
	for len(at) < panicFrames {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			name := f.Function[strings.LastIndexByte(f.Function, '/')+1:]
			at = append(at, fmt.Sprintf("%s %s:%d", name, filepath.Base(f.File), f.Line))
		}
		if !more {
			break
		}
	}
	msg := fmt.Sprintf("panic: %v", v)
	if len(at) > 0 {
		msg += " (at " + strings.Join(at, ", ") + ")"
	}
	return msg
}

// processPage does process's work for the command itself.
func processPage(ctx context.Context, opts Options, j job) Result {
	r := Result{Command: j.cmd.Name, Parent: j.cmd.Parent, Path: j.cmd.Path}
	setPackage(&r, j.owners)
	if j.cmd.Man != nil {
		r.Fingerprint = Fingerprint(j.cmd.Path, j.cmd.Man.Path)
	}
	var page *manparse.Page
	switch {
	case j.commandsPage:
		r.Source, r.ManPage, r.ManSection = SourceMan, j.cmd.Man.Path, j.cmd.Man.Section
		r.Status = StatusNotSubcommand
	case j.cmd.Man != nil:
		r.Source = SourceMan
		r.ManPage = j.cmd.Man.Path
		r.ManSection = j.cmd.Man.Section
		src, _, err := scanner.ReadPage(j.cmd.Man.Path, MaxPageBytes)
		if err != nil {
			r.Status, r.Error = StatusFailed, fmt.Sprintf("read: %v", err)
			break
		}
		page, err = manparse.Parse(src)
		if err != nil {
			r.Status, r.Error = StatusFailed, fmt.Sprintf("parse: %v", err)
			page = nil
		}
	case opts.HelpFallback || opts.HelpCommands[j.cmd.Name]:
		// the executable is all there is to judge staleness by
		r.Fingerprint = Fingerprint(j.cmd.Path, "")
		out, err := opts.Help.Run(ctx, j.cmd.Path)
		switch {
		case errors.Is(err, helprun.ErrDenied):
			r.Status, r.Error = StatusDenied, err.Error()
		case err != nil:
			r.Status, r.Error = StatusFailed, fmt.Sprintf("help: %v", err)
		default:
			r.Source = SourceHelp
			page = manparse.ParseHelp(j.cmd.Name, out)
		}
	default:
		r.Status = StatusNoManPage
	}

	if page != nil && r.Parent != "" && !page.Invokes(r.Parent, strings.TrimPrefix(r.Command, r.Parent+"-")) {
		// named like a subcommand's page, but its SYNOPSIS shows none
		r.Status = StatusNotSubcommand
		page = nil
	}
	if page != nil {
		r.Status = StatusParsed
		r.Description = page.Description
		r.Sections = page.SectionTitles()
		r.Options = len(page.Options)
		r.Examples = len(page.Examples)
		if r.ManSection == "" {
			r.ManSection = page.Section
		}
		for _, a := range j.aliases {
			r.Aliases = append(r.Aliases, a.Name)
		}
		r.Chunks, r.Trimmed = records(opts, r, page)
		r.Cut = page.Cut
		if n := len(r.Chunks); n > MaxChunksPerPage {
			r.Chunks = capChunks(r.Chunks, MaxChunksPerPage)
			r.Cut = strings.TrimPrefix(r.Cut+"; ", "; ") + fmt.Sprintf("cut: %d chunks, of which %d are indexed (the summary, examples, then options, then prose)", n, MaxChunksPerPage)
		}
	}
	return r
}

// capChunks keeps max of recs, by kind: the summary, the examples, the
// options, then the rest, each in page order; what is kept stays in page
// order.
func capChunks(recs []index.Record, max int) []index.Record {
	rank := map[index.Kind]int{index.KindSummary: 0, index.KindExample: 1, index.KindOption: 2}
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	kindRank := func(i int) int {
		if r, ok := rank[recs[i].Metadata.Kind]; ok {
			return r
		}
		return 3
	}
	sort.SliceStable(order, func(a, b int) bool { return kindRank(order[a]) < kindRank(order[b]) })
	keep := order[:max]
	sort.Ints(keep)
	out := make([]index.Record, len(keep))
	for i, k := range keep {
		out[i] = recs[k]
	}
	return out
}

// MaxChunksPerPage bounds the records one page gives: ten times the
// most of any page on a whole Debian machine (as, 327), so that one
// hostile or broken page (50,000 options) cannot take the index over.
const MaxChunksPerPage = 3000

// setPackage fills r's package fields from the run's owners (none when
// no installed package owns its executable).
func setPackage(r *Result, owners map[string]pkgdb.Package) {
	if p, ok := owners[r.Path]; ok {
		r.Package, r.PackageVersion, r.PackagePriority = p.Name, p.Version, p.Priority
	}
}

// withAliases returns r and a Result for each of the job's aliases, which
// share r's page and so its fate.
func withAliases(r Result, j job) []Result {
	out := []Result{r}
	for _, a := range j.aliases {
		ar := Result{Command: a.Name, Parent: a.Parent, Path: a.Path, Status: StatusAlias, AliasOf: j.cmd.Name,
			Source: r.Source, ManPage: r.ManPage, ManSection: r.ManSection, Description: r.Description}
		setPackage(&ar, j.owners)
		if a.Parent != "" && a.Man != nil {
			// ScanInstalled lists it by name: the build must remember it
			ar.Fingerprint = Fingerprint(a.Path, a.Man.Path)
		}
		if r.Status != StatusParsed {
			ar.Status, ar.Error = r.Status, r.Error
		}
		out = append(out, ar)
	}
	return out
}

// chunkPage cuts a page into chunks; a variable so that tests can make it
// fail the way an unknown parser bug would.
var chunkPage = (*manparse.Page).Chunks

// records turns a page's chunks into vector-store records.
func records(opts Options, r Result, page *manparse.Page) ([]index.Record, int) {
	co := opts.Chunk
	co.Command = r.Command
	chunks, trimmed := manparse.Budget(chunkPage(page, co), opts.ProseBudget)
	now := opts.Now()
	out := make([]index.Record, len(chunks))
	for i, c := range chunks {
		md := index.Metadata{
			Command: r.Command, Section: c.Section, Kind: index.Kind(c.Kind), Option: c.Option,
			ManSection: r.ManSection, InstalledPath: r.Path, ManPage: r.ManPage,
			Distro: opts.Distro.ID, OS: opts.Distro.OS, Source: index.Source(r.Source),
			IndexedAt: now, ContentHash: index.ContentHash(c.Text),
			Fingerprint: r.Fingerprint, Aliases: r.Aliases, Description: r.Description, Parent: r.Parent,
			Package: r.Package, PackageVersion: r.PackageVersion,
		}
		if c.Kind == manparse.KindSummary && r.Source == SourceMan {
			md.References = page.References()
		}
		if page.Source != "" {
			// the title line's source field: sometimes a package and its
			// version ("GNU coreutils 9.1"), often not ("TAR",
			// "Info-ZIP"), so kept as the page's source, never shown as
			// a version
			md.PageSource = page.Source
			md.IsGNU = strings.Contains(page.Source, "GNU")
		}
		out[i] = index.Record{ID: c.ID, Text: c.Text, Tokens: c.Tokens, Metadata: md}
	}
	return out, trimmed
}
