package pages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmdai/cmdai/scanner"
)

// Lookup reads, parses and chunks the pages of the named commands alone,
// as Run does for each (the same page, parse, --help rules and records),
// without walking every $PATH directory: what a query answers from when
// the index cannot (Chroma down). Names not on opts.PathDirs are left
// out; the others come back in the order asked, each with its Status (a
// command with neither page nor, under HelpFallback, --help output is
// not StatusParsed). The man hierarchies are listed once per call, and
// only when a name was found. At most max names found are parsed (0: all
// of them): a request's words are many, its commands few.
func Lookup(ctx context.Context, opts Options, names []string, max int) ([]Result, error) {
	opts = withDefaults(opts)
	var cmds []scanner.Command
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if max > 0 && len(cmds) == max {
			break
		}
		if p, ok := findOnPath(opts.PathDirs, n); ok {
			cmds = append(cmds, scanner.Command{Name: n, Path: p})
		}
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	ix, _, err := scanner.BuildManIndex(ctx, opts.ManPath, scanner.IndexOptions{Lang: opts.Lang})
	if err != nil {
		return nil, fmt.Errorf("list the man pages: %w", err)
	}
	scanner.Attach(cmds, ix)
	out := make([]Result, 0, len(cmds))
	for _, c := range cmds {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		// process, not processPage: a page that trips the parser makes a
		// failed Result, never a crashed query
		out = append(out, process(ctx, opts, job{cmd: c})[0])
	}
	return out, nil
}

// findOnPath is where which(1) finds name: the first directory of dirs
// holding an executable regular file (or a symlink to one) by that name.
// A name with a slash, or "." and "..", is never a command.
func findOnPath(dirs []string, name string) (string, bool) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return "", false
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
