// Package answertest gives the answering layer's tests a machine to
// answer from without Chroma: a PATH and man tree with one installed
// command (frob, our fixture page) and a keyword index on disk.
package answertest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search/bm25"
)

// Collection is the collection the fixtures name.
const Collection = "cmdai_linux_test"

// Machine is a cache home with no keyword index, and a PATH and man tree
// with one command, frob (our fixture page).
func Machine(t *testing.T) func(string) string {
	t.Helper()
	root := t.TempDir()
	bin, man := filepath.Join(root, "bin"), filepath.Join(root, "man", "man1")
	for _, d := range []string{bin, man} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "frob"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(frobPage())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(man, "frob.1"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin, "MANPATH": filepath.Dir(man), "CMDAI_HOME": filepath.Join(root, "home")}
	return func(k string) string { return env[k] }
}

// SaveKeywords saves a keyword index holding one command, wc, where
// queries save theirs.
func SaveKeywords(t *testing.T, getenv func(string) string) {
	t.Helper()
	dir, err := config.KeywordDir(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := index.Metadata{Command: "wc", Kind: index.KindSummary, Section: "NAME", Description: "print newline, word, and byte counts"}
	ix := bm25.Build([]bm25.Doc{{ID: "wc.1#NAME", Command: "wc", Text: "wc(1) - print newline, word, and byte counts", Meta: md}})
	if err := safefile.WriteFile(filepath.Join(dir, Collection+"-0123.checked.bm25"), 0o644, ix.Save); err != nil {
		t.Fatal(err)
	}
}

// Down is Chroma unreachable as cmdutil.Connect reports it: exit 4,
// marked with chroma.ErrUnreachable.
var Down = exitcode.With(exitcode.Unreachable, errmark.As(errors.New("chroma unreachable: nothing listens on 127.0.0.1:9\n  start it"), chroma.ErrUnreachable))

// frobPage is manparse's fixture page, found from this file (tests run
// in their own package's directory, at any depth).
func frobPage() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "manparse", "testdata", "frob.1")
}
