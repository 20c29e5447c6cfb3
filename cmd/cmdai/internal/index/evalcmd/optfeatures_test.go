package evalcmd

import "testing"

// An example record's request is its description; its line is the one
// that runs the command, not the notes after it.
func TestSplitExample(t *testing.T) {
	for _, c := range []struct{ text, command, desc, line string }{
		{"find(1) example\nSearch your home for files modified today.\n\nfind $HOME -mtime 0\n\nNote that this counts 24-hour periods.", "find",
			"Search your home for files modified today.", "find $HOME -mtime 0"},
		{"tar(1) example\nExtract it\ninto /srv.\n\n$ tar -xf a.tar -C /srv", "tar", "Extract it into /srv.", "$ tar -xf a.tar -C /srv"},
		{"git-commit(1) example\nAmend the last commit.\n\ngit commit --amend", "git-commit", "Amend the last commit.", "git commit --amend"},
		{"ls(1) example\nList.\n\nsomething else entirely", "ls", "List.", "something else entirely"}, // no line runs it: the last
		{"ls(1) example\nls -l", "ls", "", ""}, // no description
	} {
		desc, line := splitExample(c.text, c.command)
		if desc != c.desc || line != c.line {
			t.Errorf("splitExample(%q) = %q, %q; want %q, %q", c.text, desc, line, c.desc, c.line)
		}
	}
}
