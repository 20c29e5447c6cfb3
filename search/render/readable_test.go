package render

import (
	"fmt"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/shown"
)

// TestItemOf: each kind of match as a person reads it, from records as
// manparse writes them (real texts of tar, funzip, gzip and find).
func TestItemOf(t *testing.T) {
	hit := func(cmd string) shown.CommandHit { return shown.CommandHit{Command: cmd} }
	for _, c := range []struct {
		name string
		h    shown.CommandHit
		m    shown.Match
		want Item
	}{
		{"option as spelled", hit("tar"), shown.Match{Kind: index.KindOption, Option: "--extract", Text: "tar(1) option -x, --extract, --get\nExtract files from an archive. Arguments are optional."},
			Item{Kind: index.KindOption, Label: "-x, --extract, --get", Text: "Extract files from an archive."}},
		{"option cut before its first full stop", hit("tar"), shown.Match{Kind: index.KindOption, Option: "--one-top-level", Truncated: true, Text: "tar(1) option --one-top-level [=DIR]\nExtract all files into DIR, or, if used without argument, into a …"},
			Item{Kind: index.KindOption, Label: "--one-top-level [=DIR]", Text: "Extract all files into DIR, or, if used without argument, into a …"}},
		{"option without a heading", hit("x"), shown.Match{Kind: index.KindOption, Option: "--frob"}, Item{Kind: index.KindOption, Label: "--frob"}},
		{"example: the command line, its description", hit("funzip"), shown.Match{Kind: index.KindExample, Text: "funzip(1) example\nTo use funzip to extract the first member file of the archive test.zip and to pipe it into more(1):\n\nfunzip test.zip | more"},
			Item{Kind: index.KindExample, Label: "funzip test.zip | more", Text: "To use funzip to extract the first member file of the archive test.zip and to pipe it into more(1)"}},
		{"example whose lines start with other commands", hit("funzip"), shown.Match{Kind: index.KindExample, Text: "funzip(1) example\nFor tape backups:\n\ntar cf - . | zip -7 | dd of=/dev/nrst0 obs=8k\ndd if=/dev/nrst0 ibs=8k | funzip | tar xf -"},
			Item{Kind: index.KindExample, Label: "tar cf - . | zip -7 | dd of=/dev/nrst0 obs=8k\ndd if=/dev/nrst0 ibs=8k | funzip | tar xf -", Text: "For tape backups"}},
		{"example with $ prompts", hit("find"), shown.Match{Kind: index.KindExample, Text: "find(1) example\n$ find /tmp -name core -type f -print | xargs /bin/rm -f"},
			Item{Kind: index.KindExample, Label: "find /tmp -name core -type f -print | xargs /bin/rm -f"}},
		{"example whose command line goes on (a trailing backslash)", hit("find"), shown.Match{Kind: index.KindExample, Text: "find(1) example\nList large files into big.txt.\n\n$ find / \\\n\\( -size +100M -fprintf /root/big.txt '%p\\n' \\)\n\nThe backslash continues the line."},
			Item{Kind: index.KindExample, Label: "find / \\\n\\( -size +100M -fprintf /root/big.txt '%p\\n' \\)", Text: "List large files into big.txt."}},
		{"example of prose and a bullet", hit("find"), shown.Match{Kind: index.KindExample, Text: "find(1) example\nFind files named core in or below the directory /tmp and delete them.\n\n•"},
			Item{Kind: index.KindExample, Text: "Find files named core in or below the directory /tmp and delete them."}},
		{"summary: its prose, not its synopsis", hit("wc"), shown.Match{Kind: index.KindSummary, Section: "NAME", Text: "wc(1) - print newline, word, and byte counts\nSYNOPSIS\nwc [OPTION]... [FILE]...\nPrint newline, word, and byte counts for each FILE. A word is ..."},
			Item{Kind: index.KindSummary, Section: "NAME", Text: "Print newline, word, and byte counts for each FILE."}},
		{"section: its first sentence", hit("gzip"), shown.Match{Kind: index.KindSection, Section: "ADVANCED USAGE", Score: 0.5, Text: "gzip(1) ADVANCED USAGE\nGNU tar supports the -z option to invoke gzip transparently. gzip is designed as a complement to tar."},
			Item{Kind: index.KindSection, Section: "ADVANCED USAGE", Score: 0.5, Text: "GNU tar supports the -z option to invoke gzip transparently."}},
	} {
		got, ok := ItemOf(c.h, c.m)
		if !ok || got != c.want {
			t.Errorf("%s: %+v (%v)\nwant %+v", c.name, got, ok, c.want)
		}
	}
	if _, ok := ItemOf(hit("x"), shown.Match{Kind: index.KindSection, Text: "x(1) NOTES\n"}); ok {
		t.Error("an empty match gives an item")
	}
}

// TestEntries: how a line starts (a subcommand's as run), the
// description, the score kept for --scores, the matches in order.
func TestEntries(t *testing.T) {
	got := Entries([]shown.CommandHit{{Command: "git-commit", Parent: "git", Description: "Record changes", Score: 1.5, Matches: []shown.Match{
		{Kind: index.KindOption, Option: "--all", Text: "git-commit(1) option -a, --all\nStage modified files."},
		{Kind: index.KindSection, Text: "git-commit(1) NOTES\n"},
	}}})
	if len(got) != 1 || got[0].Name != "git commit" || got[0].Description != "Record changes" || got[0].Score != 1.5 || len(got[0].Items) != 1 || got[0].Items[0].Label != "-a, --all" {
		t.Errorf("%+v", got)
	}
}

// TestCardOf: the synopsis; options its synopsis or examples use first,
// then those with a one-letter form, then the rest (each group in
// record order, each option once); examples in page order.
func TestCardOf(t *testing.T) {
	doc := grepDoc()
	doc.Records = append(doc.Records,
		shown.Match{Kind: index.KindOption, Option: "--after-context", Text: "grep(1) option -A NUM, --after-context=NUM\nPrint NUM lines of trailing context."},
		shown.Match{Kind: index.KindOption, Option: "--ignore-case", Text: "grep(1) option -i, --ignore-case\nIgnore case distinctions in patterns and data."},
		shown.Match{Kind: index.KindOption, Option: "--recursive", Text: "grep(1) option -r, --recursive\nRead all files under each directory, recursively."},
		shown.Match{Kind: index.KindOption, Option: "--regexp", Text: "grep(1) option -e PATTERNS, --regexp=PATTERNS\nUse PATTERNS as the patterns."},
		shown.Match{Kind: index.KindOption, Option: "--count", Text: "grep(1) option -c, --count\nthe same option again"},
	)
	c := CardOf(doc)
	if c.Head != "grep(1)" || c.Description != "print lines that match patterns" || c.Version != "GNU grep 3.8" || fmt.Sprint(c.Synopsis) != "[grep [OPTION...] PATTERNS [FILE...] grep [OPTION...] -e PATTERNS ... [FILE...]]" {
		t.Errorf("head: %+v", c)
	}
	var labels []string
	for _, it := range c.Options {
		labels = append(labels, it.Label)
	}
	want := "[-i, --ignore-case -r, --recursive -e PATTERNS, --regexp=PATTERNS -c, --count -A NUM, --after-context=NUM --color[=WHEN], --colour[=WHEN]]"
	if fmt.Sprint(labels) != want {
		t.Errorf("options: %s\nwant     %s", labels, want)
	}
	if len(c.Examples) != 2 || c.Examples[0].Label != "grep -i hello menu.h" || c.Examples[1].Label != "grep -r hello /etc" || c.Examples[1].Text != "Search every file under /etc." {
		t.Errorf("examples: %+v", c.Examples)
	}
}
