package pages

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/scanner"
)

// selectJobs keeps the jobs that document the named commands. A job is
// kept whole: asking for gunzip shows gzip's page, which documents it.
// Asking for a command also keeps its subcommands' pages (git's brings
// git-commit(1)); a subcommand page can be asked for by its name.
func selectJobs(jobs []job, names []string) ([]job, error) {
	want, parents := map[string]bool{}, map[string]bool{}
	for _, n := range names {
		want[n], parents[n] = true, true
	}
	var out []job
	for _, j := range jobs {
		hit := parents[j.cmd.Parent]
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
	return fmt.Errorf("%w: %s (check the name, or that its directory is on $PATH; a subcommand is named as its page is, git-commit, and needs that page installed)", ErrUnknownCommand, strings.Join(missing, ", "))
}

// CheckCommands fails with ErrUnknownCommand when a name in
// opts.Commands is neither on $PATH nor a subcommand page of a command
// on it (git-commit). It walks $PATH, and lists the man hierarchies only
// when a name is not on it (no page is read), so a build can refuse a
// typo before it changes anything.
func CheckCommands(ctx context.Context, opts Options) error {
	if len(opts.Commands) == 0 {
		return nil
	}
	opts = withDefaults(opts)
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
	if len(missing) == 0 {
		return nil
	}
	ix, _, err := scanner.BuildManIndex(ctx, opts.ManPath, scanner.IndexOptions{Lang: opts.Lang})
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	scanner.Attach(cmds, ix)
	for _, c := range scanner.Subcommands(cmds, ix) {
		have[c.Name] = true
	}
	missing = slices.DeleteFunc(missing, func(n string) bool { return have[n] })
	if len(missing) > 0 {
		return unknownCommands(missing)
	}
	return nil
}

// withSubcommands adds to a run's jobs those of the subcommand pages
// (scanner.Subcommands). One whose page is a command's (a git-foo(1)
// that is a link to git(1) documents git, not a subcommand) is marked
// to be reported as not_subcommand, unread: every page ScanInstalled
// lists gets a Result, so that status finds it indexed or skipped. The
// jobs stay in name order.
func withSubcommands(jobs []job, subs []scanner.Command) []job {
	if len(subs) == 0 {
		return jobs
	}
	have := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		if j.page != "" {
			have[j.page] = true
		}
	}
	for _, j := range groupByPage(subs) {
		j.commandsPage = have[j.page]
		jobs = append(jobs, j)
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].cmd.Name < jobs[b].cmd.Name })
	return jobs
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
	// Each suffix in the scanner's order, as this always stripped them
	// (unlike scanner.TrimCompression's one), so a name with two stacked
	// suffixes keeps the base it had.
	for _, c := range scanner.Compressions() {
		base = strings.TrimSuffix(base, "."+c)
	}
	if k := strings.LastIndexByte(base, '.'); k > 0 {
		base = base[:k]
	}
	return base
}
