package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/customdocs"
)

func TestDocsNew(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CMDAI_HOME", home)
	code, out, errOut := runCLI(t, "index", "docs", "new", "mytool")
	if code != 0 || !strings.Contains(out, "index refresh") {
		t.Fatalf("docs new: exit %d %s %s", code, out, errOut)
	}
	docs, probs := customdocs.Load([]string{filepath.Join(home, "config", "commands")})
	if len(probs) != 0 || len(docs) != 1 || docs[0].Command != "mytool" {
		entries, _ := os.ReadDir(home)
		t.Fatalf("the template does not load: %+v %+v (home holds %v)", docs, probs, entries)
	}
	if code, _, errOut := runCLI(t, "index", "docs", "new", "mytool"); code != ExitUsage || !strings.Contains(errOut, "--force") {
		t.Errorf("second time: exit %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "index", "docs", "new", "../evil"); code != ExitUsage {
		t.Errorf("a path as a name: exit %d", code)
	}
}
