// Package pipeline runs the indexing stages (scan $PATH and the man
// hierarchies, read, parse and chunk each page) concurrently with bounded
// memory, and hands each command's result on in a stable order.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
)

// Status of one command after the pipeline, as index.Status names it.
const (
	StatusParsed    = string(index.StatusParsed)
	StatusAlias     = string(index.StatusAlias)
	StatusNoManPage = string(index.StatusNoManPage)
	StatusFailed    = string(index.StatusFailed)
	StatusDenied    = string(index.StatusDenied)
)

// Sources of a command's documentation, as its records say.
const (
	SourceMan  = string(index.SourceMan)
	SourceHelp = string(index.SourceHelp)
)

// MaxPageBytes caps one decompressed man page; the largest on a Debian
// system (perltoc, ffmpeg-all) are a few MiB.
const MaxPageBytes = 16 << 20

// Options configure a run. The zero value scans $PATH with the system's
// man path.
type Options struct {
	// PathDirs are the directories to scan; nil means $PATH.
	PathDirs []string
	// ManPath lists the man hierarchies; nil derives them as man-db does.
	ManPath []string
	// Lang prefers pages in this language ("de", "fr"); "" is English.
	Lang string
	// Commands restricts the run to these names (as found on PATH).
	Commands []string
	// HelpFallback runs "cmd --help" for commands without a man page.
	HelpFallback bool
	Help         scanner.HelpRunner
	// Parallel bounds concurrent work; 0 means the number of CPUs.
	Parallel int
	Distro   distro.Info
	// Chunk sizes chunks; Command is set per command by the pipeline.
	Chunk manparse.ChunkOptions
	// ProseBudget bounds the word pieces of prose kept per page besides
	// its summary, options and examples (manparse.Budget). 0 keeps all.
	ProseBudget int
	// Now stamps records (indexed_at); nil means time.Now.
	Now func() time.Time
	// Progress, if set, is called after each command is processed, from
	// the goroutine that calls emit.
	Progress func(done, total int)
}

// Result is what the pipeline learned about one command. It is the object
// `cmdai index scan --json` prints, one per line: keep the JSON stable.
type Result struct {
	Command     string         `json:"command"`
	Path        string         `json:"path"`
	Status      string         `json:"status"`
	Source      string         `json:"source,omitempty"`
	ManPage     string         `json:"man_page,omitempty"`
	ManSection  string         `json:"man_section,omitempty"`
	AliasOf     string         `json:"alias_of,omitempty"`
	Aliases     []string       `json:"aliases,omitempty"`
	Description string         `json:"description,omitempty"`
	Sections    []string       `json:"sections,omitempty"`
	Options     int            `json:"options"`
	Examples    int            `json:"examples"`
	Chunks      []index.Record `json:"chunks,omitempty"`
	// Trimmed counts chunks left out by Options.ProseBudget.
	Trimmed int    `json:"trimmed_chunks,omitempty"`
	Error   string `json:"error,omitempty"`
	// Fingerprint changes when the executable or its man page does (path,
	// size, modification time): what `index status` compares for staleness.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Stats summarise a run.
type Stats struct {
	CommandsSeen int               `json:"commands_seen"`
	WithManPage  int               `json:"with_man_page"`
	Parsed       int               `json:"parsed"`
	FromHelp     int               `json:"from_help"`
	Aliases      int               `json:"aliases"`
	NoManPage    int               `json:"no_man_page"`
	Failed       int               `json:"failed"`
	Denied       int               `json:"denied"`
	Failures     map[string]int    `json:"failures,omitempty"`
	Chunks       int               `json:"chunks"`
	Trimmed      int               `json:"trimmed_chunks"`
	Problems     []scanner.Problem `json:"problems,omitempty"`
	ManPages     int               `json:"man_pages_indexed"`
	ScanTime     Duration          `json:"scan_seconds"`
	ParseTime    Duration          `json:"parse_seconds"`
	Total        Duration          `json:"total_seconds"`
	PagesPerSec  float64           `json:"pages_per_second"`
}

// Duration marshals as seconds, which scripts can do arithmetic on.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.3f", time.Duration(d).Seconds())), nil
}

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s float64
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*d = Duration(s * float64(time.Second))
	return nil
}

func (d Duration) String() string { return time.Duration(d).Round(time.Millisecond).String() }

// ErrUnknownCommand is returned when --command names something not on PATH.
var ErrUnknownCommand = errors.New("command not found on PATH")

// job is one unit of parse work: a command and the commands that share
// its page.
type job struct {
	cmd     scanner.Command
	aliases []scanner.Command
	page    string // resolved page file, "" if none
}

// Run scans, parses and chunks, calling emit once per command, in name
// order except that aliases follow the command whose page they share. A page that fails is reported in its Result, not as an error;
// Run fails only on setup errors, cancellation or an emit error.
func Run(ctx context.Context, opts Options, emit func(Result) error) (Stats, error) {
	start := time.Now()
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PathDirs == nil {
		opts.PathDirs = scanner.SplitPath(os.Getenv("PATH"))
	}
	if opts.ManPath == nil {
		opts.ManPath = scanner.ManPath(os.Getenv, opts.PathDirs, "")
	}
	var st Stats

	// Stage 1: the PATH walk and the man-hierarchy listing are independent.
	var cmds []scanner.Command
	var ix *scanner.ManIndex
	g, gctx := errgroup.WithContext(ctx)
	var pathProblems, manProblems []scanner.Problem
	g.Go(func() (err error) {
		cmds, pathProblems, err = scanner.ScanPath(gctx, opts.PathDirs, opts.Parallel)
		return err
	})
	g.Go(func() (err error) {
		ix, manProblems, err = scanner.BuildManIndex(gctx, opts.ManPath, scanner.IndexOptions{Lang: opts.Lang})
		return err
	})
	if err := g.Wait(); err != nil {
		return st, fmt.Errorf("scan: %w", err)
	}
	st.Problems = append(pathProblems, manProblems...)
	scanner.Attach(cmds, ix)

	jobs := groupByPage(cmds)
	if len(opts.Commands) > 0 {
		var err error
		if jobs, err = selectJobs(jobs, opts.Commands); err != nil {
			return st, err
		}
	}
	st.ScanTime = Duration(time.Since(start))
	for _, j := range jobs {
		st.CommandsSeen += 1 + len(j.aliases)
	}

	// Stage 2: parse and chunk in a bounded worker pool. Workers write
	// into a pre-sized slice by index; the emitter hands results on in
	// order, and a window keeps workers from running far ahead of it, so
	// memory stays flat however many commands there are.
	parseStart := time.Now()
	results := make([][]Result, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	window := make(chan struct{}, 4*opts.Parallel)
	g, gctx = errgroup.WithContext(ctx)
	g.Go(func() error {
		next := make(chan int)
		w, wctx := errgroup.WithContext(gctx)
		for n := 0; n < opts.Parallel; n++ {
			w.Go(func() error {
				for i := range next {
					results[i] = process(wctx, opts, jobs[i])
					close(done[i])
				}
				return nil
			})
		}
	feed:
		for i := range jobs {
			select {
			case window <- struct{}{}:
			case <-wctx.Done():
				break feed
			}
			select {
			case next <- i:
			case <-wctx.Done():
				break feed
			}
		}
		close(next)
		return w.Wait()
	})
	g.Go(func() error {
		for i := range jobs {
			select {
			case <-done[i]:
			case <-gctx.Done():
				return gctx.Err()
			}
			for _, r := range results[i] {
				st.count(r)
				if err := emit(r); err != nil {
					return err
				}
			}
			results[i] = nil
			<-window
			if opts.Progress != nil {
				opts.Progress(i+1, len(jobs))
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return st, err
	}
	st.ParseTime = Duration(time.Since(parseStart))
	st.Total = Duration(time.Since(start))
	if s := time.Duration(st.ParseTime).Seconds(); s > 0 {
		st.PagesPerSec = float64(st.ManPages) / s
	}
	return st, nil
}

func (st *Stats) count(r Result) {
	if r.ManPage != "" {
		st.WithManPage++
	}
	switch r.Status {
	case StatusParsed:
		st.Parsed++
		if r.Source == SourceHelp {
			st.FromHelp++
		} else {
			st.ManPages++
		}
	case StatusAlias:
		st.Aliases++
	case StatusNoManPage:
		st.NoManPage++
	case StatusDenied:
		st.Denied++
	case StatusFailed:
		st.Failed++
		if st.Failures == nil {
			st.Failures = map[string]int{}
		}
		st.Failures[failureReason(r.Error)]++
	}
	st.Chunks += len(r.Chunks)
	st.Trimmed += r.Trimmed
}

// failureReason shortens an error to its kind for the totals ("read",
// "parse: not roff", ...): the full message is in the command's Result.
func failureReason(msg string) string {
	if strings.HasPrefix(msg, "help:") {
		switch {
		case strings.Contains(msg, "no answer within"):
			return "help: timeout"
		case strings.Contains(msg, "printed nothing"):
			return "help: no output"
		}
		return "help: failed"
	}
	for _, k := range []string{"not a man page", "too large", "redirect", "dangling symlink", "corrupt", "permission denied", "no such file"} {
		if strings.Contains(msg, k) {
			return k
		}
	}
	if k := strings.Index(msg, ":"); k > 0 {
		return msg[:k]
	}
	return msg
}

// selectJobs keeps the jobs that document the named commands. A job is
// kept whole: asking for gunzip shows gzip's page, which documents it.
func selectJobs(jobs []job, names []string) ([]job, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []job
	for _, j := range jobs {
		hit := false
		for _, c := range append([]scanner.Command{j.cmd}, j.aliases...) {
			if want[c.Name] {
				hit = true
				delete(want, c.Name)
			}
		}
		if hit {
			out = append(out, j)
		}
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for n := range want {
			missing = append(missing, n)
		}
		return nil, unknownCommands(missing)
	}
	return out, nil
}

// unknownCommands is the one error for names not on $PATH.
func unknownCommands(missing []string) error {
	sort.Strings(missing)
	return fmt.Errorf("%w: %s (check the name, or that its directory is on $PATH)", ErrUnknownCommand, strings.Join(missing, ", "))
}

// CheckCommands fails with ErrUnknownCommand when a name in
// opts.Commands is not on $PATH. It only walks $PATH (no man page is
// read), so a build can refuse a typo before it changes anything.
func CheckCommands(ctx context.Context, opts Options) error {
	if len(opts.Commands) == 0 {
		return nil
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.PathDirs == nil {
		opts.PathDirs = scanner.SplitPath(os.Getenv("PATH"))
	}
	cmds, _, err := scanner.ScanPath(ctx, opts.PathDirs, opts.Parallel)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	have := make(map[string]bool, len(cmds))
	for _, c := range cmds {
		have[c.Name] = true
	}
	var missing []string
	for _, n := range opts.Commands {
		if !have[n] && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return unknownCommands(missing)
	}
	return nil
}

// groupByPage makes one job per command, except that commands whose man
// pages resolve to the same file (gzip, gunzip, zcat) are indexed once,
// under the command the page is named after, with the others as aliases.
func groupByPage(cmds []scanner.Command) []job {
	byPage := map[string][]int{}
	resolved := make([]string, len(cmds))
	for i, c := range cmds {
		if c.Man == nil {
			continue
		}
		resolved[i] = resolvePage(c.Man.Path)
	}
	canon := sameContent(resolved)
	for i, p := range resolved {
		if p == "" {
			continue
		}
		if c, ok := canon[p]; ok {
			resolved[i] = c
		}
		byPage[resolved[i]] = append(byPage[resolved[i]], i)
	}
	jobs := make([]job, 0, len(cmds))
	for i, c := range cmds {
		p := resolved[i]
		if p == "" {
			jobs = append(jobs, job{cmd: c})
			continue
		}
		group := byPage[p]
		if primary(cmds, group, p) != i {
			continue // emitted with the group's primary
		}
		j := job{cmd: c, page: p}
		for _, k := range group {
			if k != i {
				j.aliases = append(j.aliases, cmds[k])
			}
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// soStubMax is the largest file that may be a ".so" redirect stub worth
// opening while grouping: stubs hold one short line, real pages are kKBs.
const soStubMax = 512

// resolvePage follows symlinks and, for tiny files, ".so" redirects, so
// that commands whose pages are the same text group together (zstdcat's
// page is ".so man1/zstd.1").
func resolvePage(path string) string {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path
	}
	if fi, err := os.Stat(p); err == nil && fi.Size() <= soStubMax {
		if _, real, err := scanner.ReadPage(p, soStubMax*64); err == nil {
			if r, err := filepath.EvalSymlinks(real); err == nil {
				return r
			}
			return real
		}
	}
	return p
}

// sameContent maps page files that are byte-identical copies of another
// (Debian ships zstdcat.1.gz as a copy of zstd.1.gz) to one of them. Only
// files whose sizes collide are hashed, so this costs a few reads.
func sameContent(paths []string) map[string]string {
	bySize := map[int64][]string{}
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		if fi, err := os.Stat(p); err == nil {
			bySize[fi.Size()] = append(bySize[fi.Size()], p)
		}
	}
	canon := map[string]string{}
	for _, group := range bySize {
		if len(group) < 2 {
			continue
		}
		sort.Strings(group)
		first := map[[32]byte]string{}
		for _, p := range group {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			h := sha256.Sum256(b)
			if f, ok := first[h]; ok {
				canon[p] = f
			} else {
				first[h] = p
			}
		}
	}
	return canon
}

// primary picks the command a shared page is indexed under: the shortest
// name among the commands that have a page file of their own name (zstd
// over zstdcat and unzstd, gzip over gunzip), else the shortest name.
func primary(cmds []scanner.Command, group []int, _ string) int {
	best, bestOwn := -1, false
	for _, k := range group {
		own := pageBase(cmds[k].Man.Path) == cmds[k].Name
		switch {
		case best < 0, own && !bestOwn:
		case own == bestOwn && shorter(cmds[k].Name, cmds[best].Name):
		default:
			continue
		}
		best, bestOwn = k, own
	}
	return best
}

func shorter(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// pageBase is the page name in a page file name: "gzip" for gzip.1.gz.
func pageBase(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".gz", ".bz2", ".xz", ".zst", ".Z"} {
		base = strings.TrimSuffix(base, ext)
	}
	if k := strings.LastIndexByte(base, '.'); k > 0 {
		base = base[:k]
	}
	return base
}

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
	r := Result{Command: j.cmd.Name, Path: j.cmd.Path}
	if j.cmd.Man != nil {
		r.Fingerprint = Fingerprint(j.cmd.Path, j.cmd.Man.Path)
	}
	var page *manparse.Page
	switch {
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
	case opts.HelpFallback:
		out, err := opts.Help.Run(ctx, j.cmd.Path)
		switch {
		case errors.Is(err, scanner.ErrDenied):
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
	}
	return r
}

// withAliases returns r and a Result for each of the job's aliases, which
// share r's page and so its fate.
func withAliases(r Result, j job) []Result {
	out := []Result{r}
	for _, a := range j.aliases {
		ar := Result{Command: a.Name, Path: a.Path, Status: StatusAlias, AliasOf: j.cmd.Name,
			Source: r.Source, ManPage: r.ManPage, ManSection: r.ManSection, Description: r.Description}
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
			Fingerprint: r.Fingerprint, Aliases: r.Aliases, Description: r.Description,
		}
		if page.Source != "" {
			// the title line's source field names the package and its
			// version ("GNU coreutils 9.1"): the best version we know
			// without running the program
			md.Version = page.Source
			md.IsGNU = strings.Contains(page.Source, "GNU")
		}
		out[i] = index.Record{ID: c.ID, Text: c.Text, Tokens: c.Tokens, Metadata: md}
	}
	return out, trimmed
}

// Fingerprint identifies the installed state of a command from its
// executable and man page: path, size and modification time of each (the
// page resolved through symlinks). Reading no contents keeps a check of
// a thousand commands in milliseconds.
func Fingerprint(cmdPath, manPath string) string {
	h := sha256.New()
	for _, p := range []string{cmdPath, manPath} {
		fmt.Fprintf(h, "%s\x00", p)
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%d\x00%d\x00", st.Size(), st.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Installed is a command on $PATH with a man page, as a quick scan finds
// it (no page is read).
type Installed struct {
	Command     string
	Fingerprint string
}

// ScanInstalled walks $PATH and the man hierarchy only (no parsing) and
// returns each command that has a man page, with its fingerprint: the
// cheap half of the pipeline, for staleness checks.
func ScanInstalled(ctx context.Context, opts Options) ([]Installed, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.PathDirs == nil {
		opts.PathDirs = scanner.SplitPath(os.Getenv("PATH"))
	}
	if opts.ManPath == nil {
		opts.ManPath = scanner.ManPath(os.Getenv, opts.PathDirs, "")
	}
	cmds, _, err := scanner.ScanPath(ctx, opts.PathDirs, opts.Parallel)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	ix, _, err := scanner.BuildManIndex(ctx, opts.ManPath, scanner.IndexOptions{Lang: opts.Lang})
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	scanner.Attach(cmds, ix)
	var out []Installed
	for _, c := range cmds {
		if c.Man != nil {
			out = append(out, Installed{Command: c.Name, Fingerprint: Fingerprint(c.Path, c.Man.Path)})
		}
	}
	return out, nil
}
