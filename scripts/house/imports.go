package main

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// commandsDir holds the command packages, one per CLI path (those of
// `cmdai index` in the plain directory index/); cmdutil is what they
// share (the factory, the flags, the exit codes).
const (
	commandsDir = "cmd/cmdai/internal"
	sharedPkg   = "cmdutil"
)

// importViolations checks the way data flows (issue #31) over the module
// at root, test files included: nothing outside cmd/ imports a package
// under cmd/ (the answering layer and the rooms below serve every front
// door, so none may climb back into one); and, with commands set, no
// command package under cmd/cmdai/internal/ imports another but cmdutil
// (a command package that imports another makes a change to `index query`
// break serve and mcp). A package below a command package belongs to that
// command; a plain directory there (no Go files, such as index/) only
// groups command packages, each of which is a command of its own. It
// returns one line per importing package and imported package, sorted,
// naming the first file that does it.
func importViolations(root string, commands bool) ([]string, error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	type edge struct{ from, to, file string }
	var edges []edge
	hasGo := map[string]bool{} // directories, relative to root, with Go files
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		from := filepath.ToSlash(rel)
		hasGo[from] = true
		for _, spec := range file.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if to, ok := strings.CutPrefix(imp, module+"/"); ok {
				edges = append(edges, edge{from, to, filepath.ToSlash(path)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	plain := func(dir string) bool { return !hasGo[dir] }
	found := map[string]string{} // "from imports to: rule" -> first file
	for _, e := range edges {
		if rule := brokenRule(e.from, e.to, commands, plain); rule != "" {
			key := fmt.Sprintf("%s imports %s: %s", e.from, e.to, rule)
			if _, seen := found[key]; !seen {
				found[key] = e.file
			}
		}
	}
	out := make([]string, 0, len(found))
	for key, file := range found {
		out = append(out, fmt.Sprintf("%s (%s)", key, file))
	}
	sort.Strings(out)
	return out, nil
}

// brokenRule names the rule package from (a directory relative to the
// module root) breaks by importing package to, or "" for none; plain says
// whether a directory under commandsDir is a plain one (no Go files).
func brokenRule(from, to string, commands bool, plain func(dir string) bool) string {
	if under(to, "cmd") && !under(from, "cmd") {
		return "nothing outside cmd/ imports cmd/ (move what both need below cmd/)"
	}
	if !commands || !under(from, commandsDir) || !under(to, commandsDir) {
		return ""
	}
	fromCmd, toCmd := commandOf(from, plain), commandOf(to, plain)
	if toCmd == sharedPkg || toCmd == fromCmd {
		return ""
	}
	return "no command package imports another (move what both need to " + sharedPkg + " or below cmd/)"
}

// under says whether the slash path p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// commandOf is the command package that p, a path under commandsDir,
// belongs to, relative to commandsDir ("" for commandsDir): the first
// directory below commandsDir, or, where that is a plain directory that
// groups commands (index/), the first below it that is not ("index/querycmd").
func commandOf(p string, plain func(dir string) bool) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(p, commandsDir), "/")
	parts := strings.Split(rest, "/")
	for i := range parts {
		cmd := strings.Join(parts[:i+1], "/")
		if i == len(parts)-1 || !plain(commandsDir+"/"+cmd) {
			return cmd
		}
	}
	return ""
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", fmt.Errorf("the import rules need the module's go.mod: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s names no module", gomod)
}
