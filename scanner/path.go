package scanner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"

	"golang.org/x/sync/errgroup"
)

// SplitPath splits a $PATH value into absolute, cleaned, deduplicated
// directories in order. Empty entries mean "." in POSIX and relative entries
// depend on the working directory; both are dropped, because indexing
// whatever directory the tool happens to run in would be surprising and
// unsafe (a hostile checkout could plant a "ls").
func SplitPath(path string) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if seen[d] {
			continue
		}
		seen[d] = true
		dirs = append(dirs, d)
	}
	return dirs
}

// dirScan is what one PATH directory yielded; goroutines fill these by
// index so the merge can honour PATH order without locking.
type dirScan struct {
	cmds     []Command
	problems []Problem
	dup      bool // same directory as an earlier entry, via a symlink
}

// ScanPath lists the executables in dirs, reading up to parallel directories
// at once (parallel <= 0 means one per CPU). When a name occurs in several
// directories the first one in dirs wins, as with which(1). Unreadable
// directories, dangling symlinks and symlink loops are reported as problems;
// the error is non-nil only when ctx is cancelled.
func ScanPath(ctx context.Context, dirs []string, parallel int) ([]Command, []Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}

	// Resolve first, serially (a few lstat calls each), so that /bin and
	// /usr/bin on a merged-/usr system are read once and the first
	// spelling on PATH is the one reported.
	scans := make([]dirScan, len(dirs))
	seen := map[string]bool{}
	for i, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			scans[i].problems = []Problem{{Path: d, Err: dirError(err)}}
			scans[i].dup = true // nothing to read
			continue
		}
		if seen[real] {
			scans[i].dup = true
			continue
		}
		seen[real] = true
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, d := range dirs {
		if scans[i].dup {
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			scans[i].cmds, scans[i].problems = scanDir(d)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, fmt.Errorf("scan PATH: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("scan PATH: %w", err)
	}

	var cmds []Command
	var problems []Problem
	found := map[string]bool{}
	for _, s := range scans {
		problems = append(problems, s.problems...)
		for _, c := range s.cmds {
			if !found[c.Name] {
				found[c.Name] = true
				cmds = append(cmds, c)
			}
		}
	}
	sort.Slice(cmds, func(a, b int) bool { return cmds[a].Name < cmds[b].Name })
	return cmds, problems, nil
}

// scanDir lists one directory. Regular files need one lstat (DirEntry.Info)
// for their mode; only symlinks need a stat to see what they point at.
func scanDir(dir string) ([]Command, []Problem) {
	entries, err := os.ReadDir(dir)
	if err != nil && len(entries) == 0 {
		return nil, []Problem{{Path: dir, Err: dirError(err)}}
	}
	var problems []Problem
	if err != nil { // partial listing: keep what we got, report the rest
		problems = append(problems, Problem{Path: dir, Err: dirError(err)})
	}
	cmds := make([]Command, 0, len(entries))
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		var info fs.FileInfo
		switch t := e.Type(); {
		case t.IsDir():
			continue
		case t&fs.ModeSymlink != 0:
			info, err = os.Stat(p)
			if err != nil {
				problems = append(problems, Problem{Path: p, Err: linkError(err)})
				continue
			}
		case t.IsRegular():
			info, err = e.Info()
			if err != nil {
				continue // removed while we listed; not worth a report
			}
		default:
			continue // sockets, fifos, devices
		}
		if info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			cmds = append(cmds, Command{Name: e.Name(), Path: p})
		}
	}
	return cmds, problems
}

// dirError words a PATH directory failure so that a reader of the report
// knows whether to worry: a missing directory is routine.
func dirError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "directory on PATH does not exist (harmless; remove it from PATH to silence this)"
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("cannot read directory on PATH (check its permissions): %v", err)
	case errors.Is(err, syscall.ENOTDIR):
		return "PATH entry is not a directory (remove it from PATH)"
	}
	return fmt.Sprintf("cannot read directory on PATH: %v", err)
}

// linkError words a symlink whose target cannot be stat'ed.
func linkError(err error) string {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "symlink loop (fix or remove the link)"
	case errors.Is(err, fs.ErrNotExist):
		return "dangling symlink: its target does not exist (the owning package may have been removed; delete the link)"
	}
	return fmt.Sprintf("cannot follow symlink: %v", err)
}
