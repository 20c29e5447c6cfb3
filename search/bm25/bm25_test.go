package bm25

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	got := Terms("Count the lines in files, --ignore-case; tar.gz")
	want := []string{"count", "line", "--ignore-case", "ignore", "case", "tar", "gz"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms: %q, want %q", got, want)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"files": "file", "lines": "line", "matches": "match", "boxes": "box", "directories": "directory",
		"compressed": "compress", "sorting": "sort", "process": "process", "status": "status", "ls": "ls"} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchRanksByBM25(t *testing.T) {
	ix := Build([]Doc{
		{ID: "wc#NAME", Command: "wc", Text: "wc - print newline, word, and byte counts for each file"},
		{ID: "wc#-l", Command: "wc", Text: "wc option -l, --lines print the newline counts"},
		{ID: "grep#-c", Command: "grep", Text: "grep option -c, --count print a count of matching lines for each input file, matching lines matching"},
		{ID: "tar#NAME", Command: "tar", Text: "tar - an archiving utility"},
	})
	hits := ix.Search("count lines", 10)
	if len(hits) < 2 || hits[0].Command != "grep" && hits[0].Command != "wc" {
		t.Fatalf("hits %+v", hits)
	}
	if hits := ix.Search("archiving utility", 10); len(hits) != 1 || hits[0].ID != "tar#NAME" {
		t.Errorf("archiving: %+v", hits)
	}
	if hits := ix.Search("--lines", 10); len(hits) == 0 || hits[0].ID != "wc#-l" {
		t.Errorf("a flag finds its option: %+v", hits)
	}
	if hits := ix.Search("the of and", 10); len(hits) != 0 {
		t.Errorf("stop words matched: %+v", hits)
	}
	// rarer terms weigh more: "archiving" (1 doc) beats "print" (3 docs)
	if hits := ix.Search("print archiving", 10); hits[0].ID != "tar#NAME" {
		t.Errorf("idf: %+v", hits)
	}
	var buf bytes.Buffer
	if err := ix.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Search("count lines", 10), ix.Search("count lines", 10)) {
		t.Error("a loaded index answers differently")
	}
}

func TestNameWords(t *testing.T) {
	for req, want := range map[string]string{
		"how do I use rsync to copy":     "I rsync copy",
		"tar extract a gz archive.":      "tar extract gz archive",
		"Find files named x, with find.": "named x find",
		"show the file type of (foo)":    "show type foo",
	} {
		if got := strings.Join(NameWords(req), " "); got != want {
			t.Errorf("NameWords(%q) = %q, want %q", req, got, want)
		}
	}
}
