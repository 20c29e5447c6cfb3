package termstyle

import (
	"strings"
	"testing"
)

// TestEnabled: always and never whatever the environment; auto on a
// terminal unless NO_COLOR is set and not empty, or TERM is dumb.
func TestEnabled(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		mode   string
		tty    bool
		getenv func(string) string
		want   bool
	}{
		{Auto, true, env(), true},
		{Auto, false, env(), false},
		{Auto, true, env("NO_COLOR", "1"), false},
		{Auto, true, env("NO_COLOR", ""), true},
		{Auto, true, env("TERM", "dumb"), false},
		{Auto, true, nil, false},
		{Always, false, env("NO_COLOR", "1", "TERM", "dumb"), true},
		{Never, true, env(), false},
	} {
		if got := Enabled(c.mode, c.tty, c.getenv); got != c.want {
			t.Errorf("Enabled(%q, tty %v): %v, want %v", c.mode, c.tty, got, c.want)
		}
	}
	if CheckMode("auto") != nil || CheckMode("always") != nil || CheckMode("never") != nil || CheckMode("yes") == nil {
		t.Error("CheckMode takes auto, always and never alone")
	}
}

// TestStyle: painted only when on, and a page's own escape sequences
// never pass, painted or not.
func TestStyle(t *testing.T) {
	on, off := Style{On: true}, Style{}
	if got := on.Name("tar"); got != "\x1b[1mtar\x1b[0m" {
		t.Errorf("Name: %q", got)
	}
	if got := on.Option("-x"); got != "\x1b[36m-x\x1b[0m" {
		t.Errorf("Option: %q", got)
	}
	if got := off.Dim("an archiver"); got != "an archiver" {
		t.Errorf("off: %q", got)
	}
	evil := "x\x1b]0;pwned\x07\x1b[2Jy"
	for _, got := range []string{on.Dim(evil), off.Dim(evil), on.Plain(evil)} {
		if strings.Count(got, "\x1b") > 2 || strings.Contains(got, "pwned") || strings.Contains(got, "[2J") {
			t.Errorf("a page's escapes pass: %q", got)
		}
	}
	if on.Dim("") != "" {
		t.Error("an empty text is painted")
	}
}

// TestWrap: words whole within the widths, the first line's and the
// next ones'; a word too long cut with "…"; no width: one line.
func TestWrap(t *testing.T) {
	got := Wrap("Extract  all files\ninto DIR, or into a subdirectory", 12, 20)
	want := []string{"Extract all", "files into DIR, or", "into a subdirectory"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap: %q, want %q", got, want)
	}
	if got := Wrap("a supercalifragilistic word", 10, 10); strings.Join(got, "|") != "a|supercali…|word" {
		t.Errorf("long word: %q", got)
	}
	if got := Wrap("one  line\nonly", 0, 0); len(got) != 1 || got[0] != "one line only" {
		t.Errorf("no width: %q", got)
	}
	if Wrap("  ", 10, 10) != nil {
		t.Error("blank text gives lines")
	}
	if Cut("héllo world", 6) != "héllo…" || Cut("short", 10) != "short" || Cut("whole", 0) != "whole" {
		t.Errorf("Cut: %q", Cut("héllo world", 6))
	}
}
