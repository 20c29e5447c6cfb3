package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// grepDoc is grep's documentation as search.Searcher.Docs gives it (its
// records in page order: summary, options, examples, other sections),
// texts cut short.
func grepDoc() search.CommandDoc {
	return search.CommandDoc{
		CommandHit: shown.CommandHit{Command: "grep", Description: "print lines that match patterns", Version: "GNU grep 3.8", ManSection: "1"},
		Records: []shown.Match{
			{ID: "grep.1#NAME", Kind: index.KindSummary, Section: "NAME", Text: "grep(1) - print lines that match patterns\nSYNOPSIS\ngrep [OPTION...] PATTERNS [FILE...]\ngrep [OPTION...] -e PATTERNS ... [FILE...]\ngrep searches for PATTERNS in each FILE. PATTERNS is one or more patterns."},
			{ID: "grep.1#OPTIONS#--color", Kind: index.KindOption, Section: "OPTIONS", Option: "--color", Text: "grep(1) option --color[=WHEN], --colour[=WHEN]\nSurround the matched strings with escape sequences."},
			{ID: "grep.1#OPTIONS#--count", Kind: index.KindOption, Section: "OPTIONS", Option: "--count", Text: "grep(1) option -c, --count\nSuppress normal output; instead print a count of matching lines for each input file. With the -v option, count non-matching lines."},
			{ID: "grep.1#EXAMPLES#2", Kind: index.KindExample, Section: "EXAMPLES", Text: "grep(1) EXAMPLES\ngrep -i hello menu.h\nIgnore case."},
			{ID: "grep.1#EXAMPLES#10", Kind: index.KindExample, Section: "EXAMPLES", Text: "grep(1) EXAMPLES\ngrep -r hello /etc\nSearch every file under /etc."},
			{ID: "grep.1#ENVIRONMENT", Kind: index.KindSection, Section: "ENVIRONMENT", Text: "grep(1) ENVIRONMENT\nThe behavior of grep is affected by the following environment variables."},
		},
	}
}

func TestOptionFindsAnyOfItsFlags(t *testing.T) {
	doc := grepDoc()
	for _, flag := range []string{"--count", "-c", "count"} {
		got, err := Option(doc, flag)
		if err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		if !strings.HasPrefix(got, "grep -c, --count\nSuppress normal output") || !strings.Contains(got, "count non-matching lines") {
			t.Errorf("%s gave %q, want --count's whole text", flag, got)
		}
	}
	if got, err := Option(doc, "--colour"); err != nil || !strings.Contains(got, "Surround the matched") {
		t.Errorf("--colour (second flag, with an argument): %q, %v", got, err)
	}
	_, err := Option(doc, "--frob")
	if !errors.Is(err, ErrUnknownOption) || !strings.Contains(err.Error(), "--count") {
		t.Errorf("unknown option: %v, want ErrUnknownOption naming some that exist", err)
	}
}

func TestDocsParts(t *testing.T) {
	doc := grepDoc()
	head := "grep(1) - print lines that match patterns [GNU grep 3.8]\n"
	syn := Docs(doc, PartSynopsis, 0)
	if want := head + "\nSYNOPSIS\ngrep [OPTION...] PATTERNS [FILE...]\ngrep [OPTION...] -e PATTERNS ... [FILE...]\n"; syn != want {
		t.Errorf("synopsis:\n%s\nwant:\n%s", syn, want)
	}
	opts := Docs(doc, PartOptions, 0)
	if !strings.Contains(opts, "-c, --count") || !strings.Contains(opts, "--color[=WHEN]") || strings.Contains(opts, "EXAMPLES") {
		t.Errorf("options:\n%s", opts)
	}
	ex := Docs(doc, PartExamples, 0)
	if !strings.Contains(ex, "grep -i hello menu.h    # Ignore case.") || strings.Index(ex, "menu.h") > strings.Index(ex, "/etc") {
		t.Errorf("examples, in page order:\n%s", ex)
	}
	all := Docs(doc, PartAll, 0)
	for _, w := range []string{"SUMMARY", "grep searches for PATTERNS", "OPTIONS", "EXAMPLES"} {
		if !strings.Contains(all, w) {
			t.Errorf("all lacks %q:\n%s", w, all)
		}
	}
	if strings.Contains(all, "environment variables") {
		t.Errorf("all holds prose sections, which are for search, not a summary:\n%s", all)
	}
}

// Under a small budget Docs keeps what fits, whole, and says how
// much it left out.
func TestDocsKeepsTheBudget(t *testing.T) {
	doc := grepDoc()
	got := Docs(doc, PartAll, 30)
	if !strings.Contains(got, "more entries left out") {
		t.Errorf("no note of what was left out:\n%s", got)
	}
	body := got[:strings.Index(got, "\n\n(")]
	if n := estimateTokens(body); n > 30 {
		t.Errorf("%d tokens over a budget of 30:\n%s", n, got)
	}
}

// DocsShown names the records its text shows, and no other: what fits
// the budget, of the part asked for.
func TestDocsShownNamesItsRecords(t *testing.T) {
	doc := grepDoc()
	for _, c := range []struct {
		part   string
		tokens int
		want   []int
	}{
		{PartAll, 0, []int{0, 1, 2, 3, 4}}, // not ENVIRONMENT: prose
		{PartSynopsis, 0, []int{0}},
		{PartOptions, 0, []int{1, 2}},
		{PartExamples, 0, []int{3, 4}},
	} {
		_, got := DocsShown(doc, c.part, c.tokens)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: records %v, want %v", c.part, got, c.want)
		}
	}
	text, got := DocsShown(doc, PartAll, 30)
	if len(got) == 0 || len(got) >= 5 {
		t.Fatalf("a budget of 30 tokens: records %v of 5\n%s", got, text)
	}
	for _, i := range got {
		m := doc.Records[i]
		if m.Kind == index.KindOption && !strings.Contains(text, m.Option) {
			t.Errorf("record %d (%s) named, not in the text:\n%s", i, m.Option, text)
		}
	}
	if _, i, err := OptionShown(doc, "-c"); err != nil || i != 2 {
		t.Errorf("OptionShown -c: record %d, %v; want 2", i, err)
	}
}

func TestParsePart(t *testing.T) {
	for in, want := range map[string]string{"": PartAll, "all": PartAll, "Options": PartOptions, "synopsis": PartSynopsis} {
		if got, err := ParsePart(in); err != nil || got != want {
			t.Errorf("ParsePart(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParsePart("bugs"); err == nil {
		t.Error("ParsePart accepted bugs")
	}
}

func TestBriefFewLinesPerCommand(t *testing.T) {
	hits := []shown.CommandHit{
		{Command: "find", ManSection: "1", Description: "search for files in a directory hierarchy", Matches: []shown.Match{
			{Kind: "option", Option: "-mtime", Text: "find(1) option -mtime n\nFile's data was last modified n*24 hours ago. See the comments for -atime."},
			{Kind: "option", Option: "-mtime", Text: "find(1) option -mtime n\nagain"},
			{Kind: "example", Text: "find(1) EXAMPLES\nfind . -mtime 0\nFiles modified in the last day."},
			{Kind: "option", Option: "-newer", Text: "find(1) option -newer file\nFile was modified more recently than file."},
		}},
		{Command: "stat", Matches: []shown.Match{{Kind: "section", Text: "stat(1) DESCRIPTION\nDisplay file or file system status. More here."}}},
	}
	got := Brief(hits, 2)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), got)
	}
	if lines[0] != "1. find(1) - search for files in a directory hierarchy" ||
		!strings.HasPrefix(strings.TrimSpace(lines[1]), "-mtime n") || !strings.Contains(lines[1], "File's data was last modified n*24 hours ago.") ||
		strings.TrimSpace(lines[2]) != "$ find . -mtime 0    # Files modified in the last day." ||
		lines[3] != "2. stat" || strings.TrimSpace(lines[4]) != "Display file or file system status." {
		t.Errorf("brief:\n%s", got)
	}
	if got := Brief(nil, 2); !strings.Contains(got, "No matching command") {
		t.Errorf("no hits: %q", got)
	}
}

// An alias's documentation is its command's page, and says so.
func TestDocsOfAnAlias(t *testing.T) {
	doc := search.CommandDoc{
		CommandHit: shown.CommandHit{Command: "gzip", Description: "compress or expand files"},
		AliasAsked: "zcat",
		Records:    []shown.Match{{ID: "gzip.1#NAME", Kind: index.KindSummary, Section: "NAME", Text: "gzip(1) - compress or expand files"}},
	}
	if got := Docs(doc, PartAll, 0); !strings.HasPrefix(got, "gzip - compress or expand files (zcat is an alias of gzip: this is its page)\n") {
		t.Errorf("rendered:\n%s", got)
	}
}

// A subcommand's page is shown as how its line starts, and its examples
// are found by that invocation ("git commit ..."), not by the page name.
func TestBriefNamesSubcommands(t *testing.T) {
	h := shown.CommandHit{Command: "git-commit", Parent: "git", ManSection: "1", Description: "Record changes to the repository",
		Matches: []shown.Match{{Kind: index.KindExample, Section: "EXAMPLES", Text: "git-commit(1) example\n$ git commit -a -m fix\nCommit every change."}}}
	out := Brief([]shown.CommandHit{h}, 2)
	for _, want := range []string{"1. git commit: git-commit(1) - Record changes", "$ git commit -a -m fix"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if ctx := Context([]shown.CommandHit{h}, 400); !strings.Contains(ctx, "- Command: git commit\n") || !strings.Contains(ctx, "git commit -a -m fix") {
		t.Errorf("context:\n%s", ctx)
	}
	plain := shown.CommandHit{Command: "grep", ManSection: "1"}
	if plain.Invocation() != "grep" || !strings.Contains(Brief([]shown.CommandHit{plain}, 1), "1. grep(1)") {
		t.Errorf("a command without a parent: %q", Brief([]shown.CommandHit{plain}, 1))
	}
	if got := search.PageName("  git   commit "); got != "git-commit" {
		t.Errorf("PageName = %q", got)
	}
	if got := search.PageName("grep"); got != "grep" {
		t.Errorf("PageName(grep) = %q", got)
	}
}
