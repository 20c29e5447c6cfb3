package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeAnswer is a captured session of README.md: the command after
// "$ " and what it printed, between <!-- answer:NAME --> markers.
type readmeAnswer struct {
	args   []string
	output string
}

func readmeAnswerBlock(t *testing.T, readme, name string) readmeAnswer {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- answer:" + name + " -->\n```\n\\$ (cmdai [^\n]*)\n(.*?)```\n<!-- /answer:" + name + " -->")
	m := re.FindStringSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no captured answer between <!-- answer:%s --> markers", name)
	}
	words, err := shellWords(m[1])
	if err != nil {
		t.Fatalf("README's %s line %q: %v", name, m[1], err)
	}
	return readmeAnswer{args: words[1:], output: m[2]}
}

// squash makes text laid out to a terminal's width and the same text on
// one line per item compare equal: every run of spaces and newlines is one
// space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestREADMEAnswers keeps the answers README.md's first screen shows true
// to what cmdai prints, on a real index of this machine's pages (tar and
// gzip among them; the README's capture is of the whole machine):
// explain's line is judged by tar's page alone, so its text must be the
// capture's byte for byte; search's first command, with the first two
// options it shows as spelled and their first sentence, must be the
// capture's (the others depend on what else is installed).
func TestREADMEAnswers(t *testing.T) {
	realEnv(t)
	initSmall(t)
	data, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)

	ex := readmeAnswerBlock(t, readme, "explain")
	code, out, errOut := runCLI(t, ex.args...)
	if code != 7 {
		t.Errorf("README's explain line: exit %d, want 7 (--check, an unknown option)\n%s", code, errOut)
	}
	if out != ex.output {
		t.Errorf("README's explain answer is not what cmdai prints now:\n--- README\n%s--- cmdai %s\n%s", ex.output, strings.Join(ex.args, " "), out)
	}

	se := readmeAnswerBlock(t, readme, "search")
	code, out, errOut = runCLI(t, se.args...)
	if code != 0 {
		t.Fatalf("README's search line: exit %d\n%s", code, errOut)
	}
	first := func(s string) string { block, _, _ := strings.Cut(s, "\n\n"); return block }
	// the command and its first two options: the ones after them rank by
	// how other installed pages use them (optrank's common)
	lines := strings.SplitAfterN(first(se.output), "\n", 4)
	if got, want := squash(first(out)), squash(strings.Join(lines[:min(3, len(lines))], "")); !strings.HasPrefix(got, want) {
		t.Errorf("README's search answer, first command and its first two options, is not what cmdai prints now:\n--- README\n%s\n--- cmdai %s\n%s", want, strings.Join(se.args, " "), got)
	}
	for _, hidden := range []string{"DESCRIPTION", "OPTIONS --", "(2."} {
		if strings.Contains(out, hidden) {
			t.Errorf("the default answer shows %q (sections and scores are for --scores):\n%s", hidden, out)
		}
	}
}
