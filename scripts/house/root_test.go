package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRootDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"search", "internal", "bin", "dist", ".git", ".tools", "out", "scanner/helprun"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"go.mod":     "module x\n",
		"README.md":  "x\n",
		".gitignore": "/bin/\ndist/\n*.test\n/scanner/helprun/\n!out\n# comment\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := rootDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	// Files, hidden directories and what .gitignore names plainly are not
	// rooms; "out" is not ignored (a negation), nested paths are not roots.
	want := []string{"internal", "out", "scanner", "search"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rootDirs = %q, want %q", got, want)
	}
}

func TestRootDirsWithoutGitignore(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := rootDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bin"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rootDirs = %q, want %q", got, want)
	}
}

// A package comment paragraph that starts "Size:" notes the package's
// size (no warning); a comment that only mentions size does not.
func TestMeasureFindsSizeNotes(t *testing.T) {
	root := t.TempDir()
	for dir, doc := range map[string]string{
		"big":   "// Package big does one job.\n//\n// Size: one room; its parts share the request types.\n",
		"plain": "// Package plain mentions Size: in passing.\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "a.go"), []byte(doc+"package "+dir+"\n\nfunc F() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, noted, err := measure(root)
	if err != nil || !noted["big"] || noted["plain"] {
		t.Errorf("noted %v, %v; want big alone", noted, err)
	}
}
