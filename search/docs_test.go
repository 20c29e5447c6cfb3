package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
)

// grepFixture is grep's records as init writes them (texts cut short),
// out of page order, with another command's beside them.
func grepFixture() *fakeCollection {
	md := map[string]any{"description": "print lines that match patterns", "version": "GNU grep 3.8", "man_section": "1"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range md {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return &fakeCollection{recs: []chroma.Record{
		rec("grep.1#OPTIONS#--count", "grep", "option", "grep(1) option -c, --count\nSuppress normal output; instead print a count of matching lines for each input file. With the -v option, count non-matching lines.", with(map[string]any{"option": "--count", "section": "OPTIONS"})),
		rec("grep.1#EXAMPLES#10", "grep", "example", "grep(1) EXAMPLES\ngrep -r hello /etc\nSearch every file under /etc.", with(map[string]any{"section": "EXAMPLES"})),
		rec("grep.1#EXAMPLES#2", "grep", "example", "grep(1) EXAMPLES\ngrep -i hello menu.h\nIgnore case.", with(map[string]any{"section": "EXAMPLES"})),
		rec("grep.1#NAME", "grep", "summary", "grep(1) - print lines that match patterns\nSYNOPSIS\ngrep [OPTION...] PATTERNS [FILE...]\ngrep [OPTION...] -e PATTERNS ... [FILE...]\ngrep searches for PATTERNS in each FILE. PATTERNS is one or more patterns.", with(map[string]any{"section": "NAME"})),
		rec("grep.1#OPTIONS#--color", "grep", "option", "grep(1) option --color[=WHEN], --colour[=WHEN]\nSurround the matched strings with escape sequences.", with(map[string]any{"option": "--color", "section": "OPTIONS"})),
		rec("grep.1#ENVIRONMENT", "grep", "section", "grep(1) ENVIRONMENT\nThe behavior of grep is affected by the following environment variables.", with(map[string]any{"section": "ENVIRONMENT"})),
		rec("wc.1#NAME", "wc", "summary", "wc(1) - print newline, word, and byte counts", nil),
	}}
}

func TestDocsReadsOneCommandInPageOrder(t *testing.T) {
	doc, err := Searcher{Coll: grepFixture()}.Docs(context.Background(), " grep ")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range doc.Records {
		ids = append(ids, r.ID)
	}
	want := "grep.1#NAME grep.1#OPTIONS#--color grep.1#OPTIONS#--count grep.1#EXAMPLES#2 grep.1#EXAMPLES#10 grep.1#ENVIRONMENT"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("records %s\nwant       %s", got, want)
	}
	if doc.Description != "print lines that match patterns" || doc.Version != "GNU grep 3.8" {
		t.Errorf("details %+v", doc.CommandHit)
	}
}

func TestDocsRefusesUnknownAndEmptyCommands(t *testing.T) {
	s := Searcher{Coll: grepFixture()}
	_, err := s.Docs(context.Background(), "frobnicate")
	if !errors.Is(err, ErrUnknownCommand) || !strings.Contains(err.Error(), "search_commands") {
		t.Errorf("unknown command: %v, want ErrUnknownCommand saying what to do", err)
	}
	if _, err := s.Docs(context.Background(), "  "); err == nil {
		t.Error("an empty command name was accepted")
	}
}

func TestRenderOptionFindsAnyOfItsFlags(t *testing.T) {
	doc, err := Searcher{Coll: grepFixture()}.Docs(context.Background(), "grep")
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--count", "-c", "count"} {
		got, err := RenderOption(doc, flag)
		if err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		if !strings.HasPrefix(got, "grep -c, --count\nSuppress normal output") || !strings.Contains(got, "count non-matching lines") {
			t.Errorf("%s gave %q, want --count's whole text", flag, got)
		}
	}
	if got, err := RenderOption(doc, "--colour"); err != nil || !strings.Contains(got, "Surround the matched") {
		t.Errorf("--colour (second flag, with an argument): %q, %v", got, err)
	}
	_, err = RenderOption(doc, "--frob")
	if !errors.Is(err, ErrUnknownOption) || !strings.Contains(err.Error(), "--count") {
		t.Errorf("unknown option: %v, want ErrUnknownOption naming some that exist", err)
	}
}

func TestRenderDocsParts(t *testing.T) {
	doc, err := Searcher{Coll: grepFixture()}.Docs(context.Background(), "grep")
	if err != nil {
		t.Fatal(err)
	}
	head := "grep(1) - print lines that match patterns [GNU grep 3.8]\n"
	syn := RenderDocs(doc, PartSynopsis, 0)
	if want := head + "\nSYNOPSIS\ngrep [OPTION...] PATTERNS [FILE...]\ngrep [OPTION...] -e PATTERNS ... [FILE...]\n"; syn != want {
		t.Errorf("synopsis:\n%s\nwant:\n%s", syn, want)
	}
	opts := RenderDocs(doc, PartOptions, 0)
	if !strings.Contains(opts, "-c, --count") || !strings.Contains(opts, "--color[=WHEN]") || strings.Contains(opts, "EXAMPLES") {
		t.Errorf("options:\n%s", opts)
	}
	ex := RenderDocs(doc, PartExamples, 0)
	if !strings.Contains(ex, "grep -i hello menu.h    # Ignore case.") || strings.Index(ex, "menu.h") > strings.Index(ex, "/etc") {
		t.Errorf("examples, in page order:\n%s", ex)
	}
	all := RenderDocs(doc, PartAll, 0)
	for _, w := range []string{"SUMMARY", "grep searches for PATTERNS", "OPTIONS", "EXAMPLES"} {
		if !strings.Contains(all, w) {
			t.Errorf("all lacks %q:\n%s", w, all)
		}
	}
	if strings.Contains(all, "environment variables") {
		t.Errorf("all holds prose sections, which are for search, not a summary:\n%s", all)
	}
}

// Under a small budget RenderDocs keeps what fits, whole, and says how
// much it left out.
func TestRenderDocsKeepsTheBudget(t *testing.T) {
	doc, err := Searcher{Coll: grepFixture()}.Docs(context.Background(), "grep")
	if err != nil {
		t.Fatal(err)
	}
	got := RenderDocs(doc, PartAll, 30)
	if !strings.Contains(got, "more entries left out") {
		t.Errorf("no note of what was left out:\n%s", got)
	}
	body := got[:strings.Index(got, "\n\n(")]
	if n := estimateTokens(body); n > 30 {
		t.Errorf("%d tokens over a budget of 30:\n%s", n, got)
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

func TestRenderBriefFewLinesPerCommand(t *testing.T) {
	hits := []CommandHit{
		{Command: "find", ManSection: "1", Description: "search for files in a directory hierarchy", Matches: []Match{
			{Kind: "option", Option: "-mtime", Text: "find(1) option -mtime n\nFile's data was last modified n*24 hours ago. See the comments for -atime."},
			{Kind: "option", Option: "-mtime", Text: "find(1) option -mtime n\nagain"},
			{Kind: "example", Text: "find(1) EXAMPLES\nfind . -mtime 0\nFiles modified in the last day."},
			{Kind: "option", Option: "-newer", Text: "find(1) option -newer file\nFile was modified more recently than file."},
		}},
		{Command: "stat", Matches: []Match{{Kind: "section", Text: "stat(1) DESCRIPTION\nDisplay file or file system status. More here."}}},
	}
	got := RenderBrief(hits, 2)
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
	if got := RenderBrief(nil, 2); !strings.Contains(got, "No matching command") {
		t.Errorf("no hits: %q", got)
	}
}

// An alias (gunzip) has no records of its own: Docs gives its command's,
// and says so.
func TestDocsFollowsAnAlias(t *testing.T) {
	f := grepFixture()
	f.recs = append(f.recs, rec("gzip.1#NAME", "gzip", "summary", "gzip(1) - compress or expand files", map[string]any{"aliases": "gunzip,zcat", "description": "compress or expand files"}))
	doc, err := Searcher{Coll: f}.Docs(context.Background(), "zcat")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Command != "gzip" || doc.AliasAsked != "zcat" || len(doc.Records) != 1 {
		t.Fatalf("zcat: %+v", doc)
	}
	if got := RenderDocs(doc, PartAll, 0); !strings.HasPrefix(got, "gzip - compress or expand files (zcat is an alias of gzip: this is its page)\n") {
		t.Errorf("rendered:\n%s", got)
	}
}
