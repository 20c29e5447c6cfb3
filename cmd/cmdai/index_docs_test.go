package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
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
	if code, _, errOut := runCLI(t, "index", "docs", "new", "mytool"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "--force") {
		t.Errorf("second time: exit %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "index", "docs", "new", "../evil"); code != cmdutil.ExitUsage {
		t.Errorf("a path as a name: exit %d", code)
	}
}

// TestDocsNewForceReplacesWhole: --force replaces the doc by a rename,
// not by truncating it in place, so an editor or `index refresh` that has
// the old file open reads it whole; and a failed write loses nothing.
func TestDocsNewForceReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mytool.md")
	old := "# my own notes, hours of work\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if code, out, errOut := runCLI(t, "index", "docs", "new", "mytool", "--dir", dir, "--force"); code != 0 {
		t.Fatalf("docs new --force: exit %d %s %s", code, out, errOut)
	}
	seen, err := io.ReadAll(reader)
	if err != nil {
		t.Fatal(err)
	}
	if string(seen) != old {
		t.Errorf("a reader of the old doc saw %q, want %q: it was rewritten in place", seen, old)
	}
	now, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(now) != customdocs.Template("mytool") {
		t.Errorf("--force wrote %q, want the template", now)
	}
}
