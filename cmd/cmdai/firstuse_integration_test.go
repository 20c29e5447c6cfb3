package main

import (
	"os"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/config"
)

// TestFirstUseSaysWhatItBuilds: an answer that must first build what
// answering reads (here the keyword index and the records' vectors are
// gone, as for an index an older cmdai wrote) says what it builds on a
// terminal, in a line that is gone once the answer prints; through a
// pipe, stderr says nothing of it.
func TestFirstUseSaysWhatItBuilds(t *testing.T) {
	realEnv(t)
	initSmall(t)
	kw, err := config.KeywordDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	forget := func() {
		t.Helper()
		if err := os.RemoveAll(kw); err != nil {
			t.Fatal(err)
		}
	}

	forget()
	exe, _ := os.Executable()
	out := onTerminal(t, exe, 60, []string{"CMDAI_TEST_SPINNER_NOW=1"}, "search", tarRequest, "-k", "2", "--no-serve")
	text := ansiSeq.ReplaceAllString(out, "")
	at := strings.Index(text, "building the keyword index...")
	answer := strings.Index(text, "1. tar")
	if at < 0 || answer < at {
		t.Fatalf("on a terminal, no \"building the keyword index...\" before the answer:\n%q", text)
	}
	// the spinner's last draw is wiped (a \r, blanks, a \r) before the
	// answer, and no drawn line is wider than the terminal
	last := text[strings.LastIndex(text[:answer], "building"):answer]
	if !strings.Contains(last, "\r"+strings.Repeat(" ", 20)) {
		t.Errorf("the spinner's line is not cleared before the answer: %q", last)
	}
	for _, l := range strings.FieldsFunc(text[:answer], func(r rune) bool { return r == '\r' || r == '\n' }) {
		if len(strings.TrimRight(l, " ")) > 59 {
			t.Errorf("a line of %d columns on a terminal of 60: %q", len(l), l)
		}
	}

	forget()
	code, _, errOut := runCLI(t, "search", tarRequest, "-k", "2", "--no-serve")
	if code != 0 || strings.Contains(errOut, "building") {
		t.Errorf("through a pipe: exit %d, stderr %q (want 0 and nothing of the build)", code, errOut)
	}
}
