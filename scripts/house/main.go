// Command house checks the shape the code keeps. Sizes are a guide, not
// a rule (issue #44: rooms by job, not by size): a function longer than
// -max-func lines or a package (tests aside) longer than -max-pkg lines
// is a warning that asks for a design note (split it by job, or say in
// its package comment why it is one room, in a paragraph that starts
// "Size:", which quiets the warning), never a failure, so that no
// package is split only to pass. manparse's roff and mdoc interpreters,
// whose request and macro switches read best whole, are not measured.
// What fails: more than -max-root directories at the top of the tree (issue #31: the
// rooms, internal/ and the data and scripts; see rootDirs). It also keeps
// data flowing down (issue #31; see importViolations): nothing outside
// cmd/ imports cmd/, and with -no-cmd-imports no command package under
// cmd/cmdai/internal/ imports another but cmdutil (a flag until the
// command packages stop importing each other, then always). It prints
// what is broken and exits 1, and the size warnings; with -v it prints
// every package's size.
//
//	go run ./scripts/house [-v] [-max-func 100] [-max-pkg 1200] [-max-root 19] [-no-cmd-imports] [dir]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// exempt are the interpreters: one case per roff request, mdoc macro or
// escape, long by nature and tested by the fuzzers.
var exempt = map[string]bool{
	"manparse": true,
}

func main() {
	maxFunc := flag.Int("max-func", 100, "longest function allowed, in lines")
	maxPkg := flag.Int("max-pkg", 1200, "largest package allowed, in non-test lines")
	// 19 since issue #34 moved the README's guides and the benchmarks' history
	// into docs/: a room for readers, not code, decided there.
	maxRoot := flag.Int("max-root", 19, "most directories allowed at the top of the tree")
	noCmdImports := flag.Bool("no-cmd-imports", false, "also check that no command package under "+commandsDir+"/ imports another ("+sharedPkg+" aside)")
	verbose := flag.Bool("v", false, "print every package's size")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	pkgs, funcs, noted, err := measure(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "house:", err)
		os.Exit(2)
	}
	dirs, err := rootDirs(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "house:", err)
		os.Exit(2)
	}
	broken, err := importViolations(root, *noCmdImports)
	if err != nil {
		fmt.Fprintln(os.Stderr, "house:", err)
		os.Exit(2)
	}
	over := len(broken)
	for _, b := range broken {
		fmt.Println("import:", b)
	}
	if len(dirs) > *maxRoot {
		fmt.Printf("root: %d directories (limit %d): %s; a package that serves one room goes under it, a helper that knows nothing of cmdai under internal/\n",
			len(dirs), *maxRoot, strings.Join(dirs, " "))
		over++
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Slice(names, func(i, j int) bool { return pkgs[names[i]] > pkgs[names[j]] })
	for _, p := range names {
		switch {
		case pkgs[p] > *maxPkg && !exempt[p] && !noted[p]:
			fmt.Printf("warning: package %s: %d lines (guide %d): if it does more than one job, split it by job; if it is one room, say why in its package comment\n", p, pkgs[p], *maxPkg)
		case *verbose:
			fmt.Printf("%6d %s\n", pkgs[p], p)
		}
	}
	for _, f := range funcs {
		if f.lines > *maxFunc && !exempt[f.pkg] {
			fmt.Printf("warning: func %s (%s): %d lines (guide %d): name its steps, or say why it reads best whole\n", f.name, f.pos, f.lines, *maxFunc)
		}
	}
	if over > 0 {
		fmt.Printf("house: %d against the import rules or the root's size: move shared code down\n", over)
		os.Exit(1)
	}
}

type function struct {
	pkg, name, pos string
	lines          int
}

// measure counts the non-test lines of each package directory and the
// length of each function (declared or literal) under root, and says
// which packages note their size (a package comment paragraph that
// starts "Size:").
func measure(root string) (map[string]int, []function, map[string]bool, error) {
	pkgs, noted := map[string]int{}, map[string]bool{}
	var funcs []function
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		pkgs[pkg] += strings.Count(string(src), "\n")
		file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		if file.Doc != nil && strings.Contains("\n"+file.Doc.Text(), "\nSize:") {
			noted[pkg] = true
		}
		ast.Inspect(file, func(n ast.Node) bool {
			name := "func literal"
			var body *ast.BlockStmt
			switch x := n.(type) {
			case *ast.FuncDecl:
				name, body = x.Name.Name, x.Body
			case *ast.FuncLit:
				body = x.Body
			}
			if body != nil {
				start := fset.Position(n.Pos())
				lines := fset.Position(body.End()).Line - start.Line + 1
				funcs = append(funcs, function{pkg: pkg, name: name, pos: fmt.Sprintf("%s:%d", path, start.Line), lines: lines})
			}
			return true
		})
		return nil
	})
	return pkgs, funcs, noted, err
}
