package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixture is a tiny module (testdata/imports) that keeps and breaks the
// import rules in each way the check must tell apart.
const fixture = "testdata/imports"

const (
	outsideRule = "nothing outside cmd/ imports cmd/ (move what both need below cmd/)"
	commandRule = "no command package imports another (move what both need to cmdutil or below cmd/)"
)

func TestImportViolationsOutsideCmd(t *testing.T) {
	got, err := importViolations(fixture, false)
	if err != nil {
		t.Fatal(err)
	}
	// Without -no-cmd-imports only the climbs into cmd/ from below count:
	// cmdx and another module's cmd/ are not this module's cmd/, and
	// testdata is not code.
	want := []string{
		"answer imports cmd/cmdai/internal/cmdutil: " + outsideRule + " (" + fixture + "/answer/answer.go)",
		"scripts/tool imports cmd/cmdai/internal/querycmd: " + outsideRule + " (" + fixture + "/scripts/tool/main.go)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("importViolations(commands=false) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestImportViolationsBetweenCommands(t *testing.T) {
	got, err := importViolations(fixture, true)
	if err != nil {
		t.Fatal(err)
	}
	// The root command may import them all, a command cmdutil and the
	// packages below it, and querycmd/format its own command; every other
	// import between command packages (a test file's, a sub-package's,
	// cmdutil's, one between two commands grouped in the plain directory
	// index/) is reported once per pair of packages, with its first file.
	want := []string{
		"answer imports cmd/cmdai/internal/cmdutil: " + outsideRule + " (" + fixture + "/answer/answer.go)",
		"cmd/cmdai/internal/cmdutil imports cmd/cmdai/internal/doccmd: " + commandRule + " (" + fixture + "/cmd/cmdai/internal/cmdutil/cmdutil_test.go)",
		"cmd/cmdai/internal/explaincmd imports cmd/cmdai/internal/querycmd/format: " + commandRule + " (" + fixture + "/cmd/cmdai/internal/explaincmd/explain.go)",
		"cmd/cmdai/internal/index/evalcmd imports cmd/cmdai/internal/index/scancmd: " + commandRule + " (" + fixture + "/cmd/cmdai/internal/index/evalcmd/eval.go)",
		"cmd/cmdai/internal/servecmd imports cmd/cmdai/internal/explaincmd: " + commandRule + " (" + fixture + "/cmd/cmdai/internal/servecmd/serve_test.go)",
		"cmd/cmdai/internal/servecmd imports cmd/cmdai/internal/querycmd: " + commandRule + " (" + fixture + "/cmd/cmdai/internal/servecmd/backend.go)",
		"scripts/tool imports cmd/cmdai/internal/querycmd: " + outsideRule + " (" + fixture + "/scripts/tool/main.go)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("importViolations(commands=true) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestImportViolationsNeedsGoMod(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "x.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := importViolations(root, true); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Fatalf("importViolations without go.mod: err = %v, want one naming go.mod", err)
	}
}

func TestBrokenRule(t *testing.T) {
	// index/ is a plain directory: it groups command packages.
	plain := func(dir string) bool { return dir == "cmd/cmdai/internal/index" }
	for _, c := range []struct {
		from, to string
		want     string
	}{
		{"cmd/cmdai", "cmd/cmdai/internal/querycmd", ""},
		{"cmd/cmdai/internal/querycmd", "cmd/cmdai/internal/cmdutil", ""},
		{"cmd/cmdai/internal/querycmd/format", "cmd/cmdai/internal/querycmd", ""},
		{"cmd/cmdai/internal/servecmd", "cmd/cmdai/internal/querycmd", commandRule},
		{"cmd/cmdai/internal/cmdutil", "cmd/cmdai/internal/querycmd", commandRule},
		{"cmd/cmdai/internal/servecmd", "answer", ""},
		{"answer", "cmd/cmdai/internal/cmdutil", outsideRule},
		{"answer", "cmd", outsideRule},
		{"answer", "cmdx", ""},
		{"cmdx", "cmd/cmdai/internal/querycmd", outsideRule},
		{"cmd/cmdai", "cmd/cmdai/internal/index/querycmd", ""},
		{"cmd/cmdai/internal/index/querycmd", "cmd/cmdai/internal/cmdutil", ""},
		{"cmd/cmdai/internal/index/importcmd", "cmd/cmdai/internal/cmdutil/tarimport", ""},
		{"cmd/cmdai/internal/cmdutil/tarimport", "cmd/cmdai/internal/cmdutil", ""},
		{"cmd/cmdai/internal/index/querycmd/format", "cmd/cmdai/internal/index/querycmd", ""},
		{"cmd/cmdai/internal/index/evalcmd", "cmd/cmdai/internal/index/querycmd", commandRule},
		{"cmd/cmdai/internal/index/evalcmd", "cmd/cmdai/internal/index/querycmd/format", commandRule},
		{"cmd/cmdai/internal/servecmd", "cmd/cmdai/internal/index/querycmd", commandRule},
		{"cmd/cmdai/internal/index/downloadcmd", "cmd/cmdai/internal/explaincmd", commandRule},
		{"cmd/cmdai/internal/cmdutil", "cmd/cmdai/internal/index/importcmd", commandRule},
	} {
		if got := brokenRule(c.from, c.to, true, plain); got != c.want {
			t.Errorf("brokenRule(%q, %q) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}
