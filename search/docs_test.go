package search

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search/kwstore"
)

// grepFixture is grep's records as init writes them (texts cut short),
// out of page order, with another command's beside them.
func grepFixture() *fakeCollection {
	md := map[string]any{"description": "print lines that match patterns", "page_source": "GNU grep 3.8", "package": "grep", "package_version": "3.8-5", "man_section": "1"}
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
	if doc.Description != "print lines that match patterns" || doc.Version != "3.8-5" || doc.Package != "grep" {
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
}

// TestDocsFromKeywordsIsDocs: a command's documentation read from the
// keyword index (Chroma down) is the one Docs reads from Chroma, alias
// and unknown command alike.
func TestDocsFromKeywordsIsDocs(t *testing.T) {
	f := grepFixture()
	f.recs = append(f.recs, rec("gzip.1#NAME", "gzip", "summary", "gzip(1) - compress or expand files", map[string]any{"aliases": "gunzip,zcat", "description": "compress or expand files"}))
	ctx := context.Background()
	ix, err := kwstore.Build(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"grep", "zcat", "wc"} {
		want, err := Searcher{Coll: f}.Docs(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DocsFromKeywords(ix, name)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s from the keyword index: %v\n got %+v\nwant %+v", name, err, got, want)
		}
	}
	if _, err := DocsFromKeywords(ix, "frobnicate"); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("unknown command: %v, want ErrUnknownCommand", err)
	}
	if _, err := DocsFromKeywords(ix, " "); err == nil || errors.Is(err, ErrUnknownCommand) {
		t.Errorf("empty name: %v, want a plain error", err)
	}
}

// A subcommand is asked for as it is run ("git commit") or by its page's
// name; either gives its page, with the parent it belongs to.
func TestDocsOfASubcommand(t *testing.T) {
	f := &fakeCollection{recs: []chroma.Record{
		rec("git.1#NAME", "git", "summary", "git(1) - the stupid content tracker", nil),
		rec("git-commit.1#NAME", "git-commit", "summary", "git-commit(1) - Record changes to the repository", map[string]any{"parent_command": "git", "man_section": "1"}),
	}}
	for _, asked := range []string{"git commit", " git  commit ", "git-commit"} {
		doc, err := Searcher{Coll: f}.Docs(context.Background(), asked)
		if err != nil || doc.Command != "git-commit" || doc.Parent != "git" || doc.Invocation() != "git commit" || len(doc.Records) != 1 {
			t.Errorf("Docs(%q) = %+v, %v", asked, doc.CommandHit, err)
		}
	}
	kw, err := kwstore.Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := DocsFromKeywords(kw, "git commit"); err != nil || doc.Command != "git-commit" || doc.Parent != "git" {
		t.Errorf("from the keyword index: %+v, %v", doc.CommandHit, err)
	}
}
