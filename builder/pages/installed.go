package pages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/cmdai/cmdai/scanner"
)

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

// Installed is a command on $PATH, as a quick scan finds it (no page is
// read).
type Installed struct {
	Command     string
	Fingerprint string
	// NoManPage: the command has no man page; its fingerprint is its
	// executable's alone, what a record read from its --help carries.
	NoManPage bool
}

// ScanDirs is where a scan looks for the environment getenv reads: the
// directories of $PATH and the man hierarchies (as man-db derives them
// from $MANPATH and $PATH). It is what zero Options use with os.Getenv;
// serve calls it with a caller's environment. An empty $PATH gives no
// directory, never nil (which Options take for "this process's $PATH").
func ScanDirs(getenv func(string) string) (pathDirs, manPath []string) {
	pathDirs = scanner.SplitPath(getenv("PATH"))
	if pathDirs == nil {
		pathDirs = []string{}
	}
	return pathDirs, scanner.ManPath(getenv, pathDirs, "")
}

// ScanInstalled walks $PATH and the man hierarchy only (no parsing) and
// returns each command, and each page that may be a subcommand's
// (scanner.Subcommands), with its fingerprint: the cheap half of these
// stages, for staleness checks. (A page that is not a subcommand's is
// remembered as skipped by the build that read it.) Commands without a
// man page are marked NoManPage: an index holds them only from --help.
func ScanInstalled(ctx context.Context, opts Options) ([]Installed, error) {
	opts = withDefaults(opts)
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
	for _, c := range append(cmds, scanner.Subcommands(cmds, ix)...) {
		if c.Man != nil {
			out = append(out, Installed{Command: c.Name, Fingerprint: Fingerprint(c.Path, c.Man.Path)})
		} else if c.Parent == "" {
			out = append(out, Installed{Command: c.Name, Fingerprint: Fingerprint(c.Path, ""), NoManPage: true})
		}
	}
	return out, nil
}
