package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evilPage is a man page written to attack the terminal that prints it:
// it sets the window title (OSC), clears the screen and moves the cursor
// (CSI), uses C1 controls and a carriage return that would overwrite the
// line.
const evilPage = ".TH EVIL 1\n" +
	".SH NAME\n" +
	"evil \\- print files \x1b]0;pwned\x07in colour\x1b[2J\n" +
	".SH DESCRIPTION\n" +
	".B evil\n" +
	"prints each file\r\x1b[1;1H to the terminal \u009b2J in colour.\n" +
	".SH OPTIONS\n" +
	".TP\n" +
	"\\fB\\-x\\fR\n" +
	"Print files in \x1b[31mred\x1b[0m colour.\x1b]2;pwned\x1b\\\\\n" +
	".SH EXAMPLES\n" +
	".EX\n" +
	"evil \\-x notes.txt\x1b[10A\n" +
	".EE\n"

// terminalControls lists what must never reach a terminal from a page.
const terminalControls = "\x1b\x07\r\u009b\u009d\u009c"

// TestPageEscapesNotPrinted indexes a page full of escape sequences and
// checks that query (plain and --context), explain and scan print its
// text without any of them, while JSON carries them only escaped.
func TestPageEscapesNotPrinted(t *testing.T) {
	realEnv(t)
	root := t.TempDir()
	bin, man := filepath.Join(root, "bin"), filepath.Join(root, "man")
	for _, d := range []string{bin, filepath.Join(man, "man1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "evil"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(man, "man1", "evil.1"), []byte(evilPage), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("MANPATH", man)

	if code, out, errOut := runCLI(t, "index", "init", "--distro", "debian-12", "--command", "evil"); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"index", "query", "--distro", "debian-12", "print files in colour"},
		{"index", "query", "--distro", "debian-12", "--context", "print files in colour"},
		{"index", "scan", "--distro", "debian-12", "--command", "evil"},
		{"index", "scan", "--distro", "debian-12"},
		{"explain", "--distro", "debian-12", "evil -x notes.txt"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
		if !strings.Contains(out, "evil") {
			t.Errorf("%s does not print the page:\n%s", strings.Join(args, " "), out)
		}
		if i := strings.IndexAny(out+errOut, terminalControls); i >= 0 {
			t.Errorf("%s printed a terminal control (%q at byte %d):\n%q", strings.Join(args, " "), (out + errOut)[i:min(i+12, len(out+errOut))], i, out+errOut)
		}
	}
	// JSON escapes control characters (\u001b): safe, and the data as
	// indexed.
	code, out, errOut := runCLI(t, "index", "query", "--distro", "debian-12", "--json", "print files in colour")
	if code != 0 || !strings.Contains(out, "evil") || strings.ContainsAny(out, terminalControls) {
		t.Errorf("query --json: exit %d\n%q\n%s", code, out, errOut)
	}
}
