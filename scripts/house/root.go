package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// rootDirs lists the directories at the top of the tree: the design's
// rooms, internal/ for the helpers that know nothing of cmdai, and the few
// that hold data, scripts and docs (issues #31, #34). A satellite of one room lives
// under that room, so a new top-level directory is a new room, and the
// limit makes adding one a decision. Hidden entries (.git, .github, .tools)
// and what the root .gitignore names plainly (/bin/, /dist/) are not
// counted: they are tooling or build output, not code.
func rootDirs(root string) ([]string, error) {
	ignored, err := rootIgnored(filepath.Join(root, ".gitignore"))
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && !strings.HasPrefix(n, ".") && !ignored[n] {
			dirs = append(dirs, n)
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// rootIgnored reads the names a .gitignore ignores at the root by a plain
// line ("/bin/", "dist/", "/cmdai"); lines with a glob, a negation or an
// inner slash are left out: they name no single top-level entry.
func rootIgnored(path string) (map[string]bool, error) {
	names := map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return names, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.ContainsAny(line, "#!*?[\\") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(line, "/"), "/")
		if name != "" && !strings.Contains(name, "/") {
			names[name] = true
		}
	}
	return names, sc.Err()
}
