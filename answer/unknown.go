package answer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hbollon/go-edlib"

	"github.com/cmdai/cmdai/answer/livedoc"
	"github.com/cmdai/cmdai/explain/judge"
)

// Unknown says what name, a command the index does not hold, is on this
// machine, judged against path (a $PATH), and what to run (issue 46:
// one advice for all, which looped): installed with a man page (index
// it), installed without one (index its --help), or not installed at
// all, with the installed name nearest it when that looks like a typo.
func Unknown(ctx context.Context, name, path string) string {
	if parent, _, ok := strings.Cut(name, " "); ok && LookIn(path)(parent) {
		// a subcommand ("git commit"): its page, not a program
		return fmt.Sprintf("%s is installed, but the index holds no page of %s (its man page is %s, when it has one; `cmdai index refresh` reads pages that came since the index was built)", parent, name, strings.ReplaceAll(name, " ", "-"))
	}
	if LookIn(path)(name) {
		if hasManPage(ctx, name) {
			return fmt.Sprintf("%s is installed but not in the index: add it with `cmdai index init --command %s` (or bring the index up to date with `cmdai index refresh`)", name, name)
		}
		return fmt.Sprintf("%s is installed but has no man page: %s", name, livedoc.HelpHint(name))
	}
	msg := fmt.Sprintf("%s is not installed here (no %s on $PATH)", name, name)
	if near := Nearest(name, path); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", near)
	}
	return msg
}

// hasManPage tells whether man finds a page for name.
func hasManPage(ctx context.Context, name string) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	// "--": a name is never an option of man's, whatever is on PATH
	return exec.CommandContext(ctx, "man", "-w", "--", name).Run() == nil
}

// Nearest is the executable on path nearest name by edit distance (a
// swap of two letters, gerp for grep, is one edit), when it is near
// enough to be what was meant (one edit for a name of up to four
// letters, two for a longer one): "" when none is.
func Nearest(name, path string) string {
	limit := 1
	if len(name) > 4 {
		limit = 2
	}
	var names []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if seen[n] || n == name || strings.HasPrefix(n, ".") {
				continue
			}
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	best, bestD := "", limit+1
	for _, n := range names {
		if d := edlib.OSADamerauLevenshteinDistance(name, n); d < bestD && LookIn(path)(n) {
			best, bestD = n, d
		}
	}
	return best
}

// SuggestInstalled adds to each command of res that is not installed the
// installed name nearest it on path, when one is near enough to be a
// typo (Nearest): "gerp foo" is told of grep.
func SuggestInstalled(res *ExplainResult, path string) {
	for i := range res.Commands {
		c := &res.Commands[i]
		if c.Verdict != judge.NotInstalled || strings.HasPrefix(c.Note, "not a command") {
			continue
		}
		if near := Nearest(filepath.Base(c.Name), path); near != "" {
			c.Note = "not installed here: did you mean " + near + "? (" + c.Note + ")"
		}
	}
}
