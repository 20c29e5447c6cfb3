package main

// Integration tests of replacing an index (issue #15, part 6): a bad
// argument changes nothing, an interrupted --force leaves the old index
// answering, and a query never answers from an empty or half index as if
// all were well.

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/indexer"
)

// smallInit builds the index of the made-up machine (frob, unfrob) and
// returns the options used, for more runs.
func smallInit(t *testing.T) *InitOptions {
	t.Helper()
	bin, man, _ := fakeMachine(t)
	io, _, errOut := testIO()
	opts := &InitOptions{IO: io, Getenv: os.Getenv, Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
		ProseBudget: indexer.DefaultProseBudget, Model: ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := runInit(context.Background(), opts); err != nil {
		t.Fatalf("init: %v\n%s", err, errOut)
	}
	return opts
}

// TestForceWithUnknownCommandKeepsIndex: `init --force --command <typo>`
// is a usage error that names the typo, and the index keeps every record.
func TestForceWithUnknownCommandKeepsIndex(t *testing.T) {
	realEnv(t)
	base := smallInit(t)
	n := records(t, "--distro", "debian-12")
	if n == 0 {
		t.Fatal("the first init wrote nothing")
	}
	io, _, _ := testIO()
	opts := *base
	opts.IO, opts.Force, opts.Commands = io, true, []string{"frob", "frbo", "nosuch"}
	err := runInit(context.Background(), &opts)
	if exitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), "frbo, nosuch") || !strings.Contains(err.Error(), "$PATH") {
		t.Errorf("init --force --command frbo: exit %d, %v; want a usage error naming frbo and nosuch", exitCode(err), err)
	}
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after the refused init --force: %d records, want %d", got, n)
	}
}
