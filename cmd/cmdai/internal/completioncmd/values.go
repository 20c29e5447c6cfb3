package completioncmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/ship/release"
)

// flagValues are the values completion offers after a flag, by the
// flag's name (the same name means the same values in every command).
// Each is computed at the <TAB>, from what this binary knows: no network,
// no index, nothing run.
var flagValues = map[string]func() []string{
	"mode": func() []string {
		var out []string
		for _, m := range []search.Mode{search.DefaultMode, search.ModeSemantic, search.ModeKeyword, search.ModeHybrid, search.ModeFused} {
			out = append(out, string(m))
		}
		return out
	},
	"model-variant":       func() []string { return []string{embed.VariantInt8, embed.VariantFP32} },
	"embed-backend":       func() []string { return []string{embed.BackendORT, embed.BackendGo} },
	"color":               func() []string { return []string{"never", "auto", "always"} },
	"chroma-token-header": func() []string { return []string{"Authorization", "X-Chroma-Token"} },
	"distro":              distroIDs,
}

// argValues are the values completion offers for a command's first
// argument, by the command's path.
var argValues = map[string]func() []string{
	"index download": distroIDs,
	"explain":        commandsOnPath,
	"show":           commandsOnPath,
}

// distroIDs are the distributions a release publishes an index for, and
// this machine's as os-release names it (a file read, no command run).
func distroIDs() []string {
	ids := slices.Clone(release.PublishedIDs)
	for _, p := range distro.DefaultOSReleasePaths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		kv, err := distro.ParseOSRelease(f)
		f.Close()
		if err != nil {
			break
		}
		if info, err := distro.FromOSRelease(kv); err == nil && !slices.Contains(ids, info.ID) {
			ids = append(ids, info.ID)
		}
		break
	}
	slices.Sort(ids)
	return ids
}

// commandsOnPath are the names of the executables in $PATH's directories:
// the commands explain and show know of, found by reading directories
// (the index would need Chroma at every <TAB>); none of them is run.
func commandsOnPath() []string {
	return executablesIn(filepath.SplitList(os.Getenv("PATH")), pathScanBudget, os.ReadDir)
}

// pathScanBudget bounds a <TAB>'s wait on $PATH: a directory on a hung
// network mount blocks its ReadDir or Stat for as long as the mount
// hangs, and the shell with it. What was read by then is offered.
var pathScanBudget = 2 * time.Second

// executablesIn lists the executables of dirs (sorted, each name once),
// read with readDir, or those found within budget; the reading left
// behind ends with the process, which a completion is.
func executablesIn(dirs []string, budget time.Duration, readDir func(string) ([]os.DirEntry, error)) []string {
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, dir := range dirs {
			if dir == "" || !filepath.IsAbs(dir) {
				continue // "." and relative entries: not what "installed" means
			}
			for _, name := range executablesOf(dir, readDir) {
				mu.Lock()
				seen[name] = true
				mu.Unlock()
			}
		}
	}()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// shellMeta are the characters a shell acts on in a word: a name holding
// one is never offered (the test command "[" among them).
const shellMeta = "$`()\\;&|<>*?[]{}'\"!#~\t="

// executablesOf names dir's executables (through symlinks).
func executablesOf(dir string, readDir func(string) ([]os.DirEntry, error)) []string {
	entries, err := readDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		// A name with a space or a control character (an escape
		// sequence) is no command a shell word can name, and would
		// reach the terminal as the completion list; one with a shell
		// metacharacter ($(...), `...`, a glob) could run or expand
		// where a shell meets it: skipped.
		if strings.HasPrefix(name, ".") || strings.IndexFunc(name, func(r rune) bool { return r == ' ' || unicode.IsControl(r) }) >= 0 || strings.ContainsAny(name, shellMeta) {
			continue
		}
		st, err := os.Stat(filepath.Join(dir, name)) // through a symlink
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			continue
		}
		out = append(out, name)
	}
	return out
}
