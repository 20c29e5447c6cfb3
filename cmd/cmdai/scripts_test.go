package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// earlyExitPipe matches a pipe into a reader that may stop before the
// writer is done (grep -q, grep -m N, head): the writer then dies of
// SIGPIPE, and under `set -o pipefail` the line fails (exit 141) when the
// reader was faster, which makes CI flaky. Capture the output first
// (out="$(cmd)"; grep -q x <<<"$out"), or let the reader read all of it.
var earlyExitPipe = regexp.MustCompile(`\|\s*(grep\s+(-[a-zA-Z]*[qm]|--quiet|--silent|--max-count)|head\b)`)

// TestScriptsHaveNoEarlyExitPipes checks every script CI runs.
func TestScriptsHaveNoEarlyExitPipes(t *testing.T) {
	root := repoRoot
	var files []string
	for _, glob := range []string{"scripts/*/*.sh", ".ci/*", ".github/workflows/*.yml", "Makefile"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %v: run the test from cmd/cmdai", files)
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "#") {
				continue
			}
			if earlyExitPipe.MatchString(line) {
				t.Errorf("%s:%d: %s\n  a pipe into a reader that stops early kills the writer with SIGPIPE (exit 141 under pipefail): capture the output first", path, n, line)
			}
		}
		f.Close()
	}
}
