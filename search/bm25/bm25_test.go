package bm25

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/index"
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

// compactDocs have what the compact form must keep apart: chunks of one
// command whose shared metadata differs, nil against empty aliases,
// empty texts and metadata, and a doc that is not a command's.
func compactDocs() []Doc {
	base := index.Metadata{Command: "grep", Source: index.SourceMan, Version: "GNU grep 3.8", Description: "print lines that match patterns",
		Aliases: []string{"egrep", "fgrep"}, ManSection: "1", InstalledPath: "/usr/bin/grep"}
	opt, other := base, base
	opt.Kind, opt.Section, opt.Option = index.KindOption, "OPTIONS", "--count"
	other.Version = "GNU grep 3.11"
	empty := base
	empty.Aliases = []string{}
	doc := index.Metadata{Command: "deploy", Kind: index.KindSummary, Source: index.SourceCustom, DocPath: "/home/u/docs/deploy.md",
		Keywords: []string{"ship", "release"}, Priority: "high", IndexedAt: time.Unix(1700000000, 0).UTC()}
	return []Doc{
		{ID: "grep#NAME", Command: "grep", Aliases: base.Aliases, Text: "grep - print lines that match patterns", Meta: base},
		{ID: "grep#--count", Command: "grep", Text: "grep option -c, --count print only a count of matching lines", Meta: opt},
		{ID: "grep#other", Command: "grep", Text: "another version's chunk", Meta: other},
		{ID: "grep#empty-aliases", Command: "grep", Text: "", Meta: empty},
		{ID: "deploy#summary", Command: "deploy", Text: "deploy - ship a release", Meta: doc},
		{ID: "loose", Text: "no command, no metadata"},
	}
}

func TestCompactFormKeepsEveryChunkExactly(t *testing.T) {
	docs := compactDocs()
	ix := Build(docs)
	var buf bytes.Buffer
	if err := ix.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*Index{"built": ix, "loaded": back} {
		if x.Len() != len(docs) || !x.HasChunks() {
			t.Fatalf("%s: %d chunks (with text: %v), want %d", name, x.Len(), x.HasChunks(), len(docs))
		}
		for i, d := range docs {
			text, md := x.Chunk(i)
			want := d.Meta
			if name == "loaded" {
				want = throughGob(t, want)
			}
			if text != d.Text || !reflect.DeepEqual(md, want) {
				t.Errorf("%s chunk %d = %q %+v, want %q %+v", name, i, text, md, d.Text, want)
			}
			if doc, ok := x.Lookup(d.ID); !ok || doc != i {
				t.Errorf("%s: Lookup(%q) = %d %v, want %d", name, d.ID, doc, ok, i)
			}
		}
		if c, ok := x.Command("fgrep"); !ok || c != "grep" {
			t.Errorf("%s: Command(fgrep) = %q %v", name, c, ok)
		}
		if hits := x.Search("count matching", 10); len(hits) == 0 || hits[0].ID != "grep#--count" || hits[0].Command != "grep" {
			t.Errorf("%s: search %+v", name, hits)
		}
	}
	if _, ok := ix.Lookup("absent"); ok {
		t.Error("Lookup of an absent id succeeded")
	}
	if old := ix.WithoutChunks(); old.HasChunks() || old.Len() != len(docs) {
		t.Errorf("WithoutChunks: chunks %v, %d", old.HasChunks(), old.Len())
	}
	// Chunks of one command that differ only in kind, section and option
	// share their metadata: the point of the compact form.
	if got := len(ix.metas.bases); got != 5 {
		t.Errorf("%d metadata bases for %d chunks, want 5 (grep's three variants, deploy, none)", got, len(docs))
	}
}

// throughGob is m as a file gives it back: gob sends no empty slice, so
// an empty Aliases comes back nil (as it always has).
func throughGob(t *testing.T, m index.Metadata) index.Metadata {
	t.Helper()
	var buf bytes.Buffer
	var back index.Metadata
	if err := gob.NewEncoder(&buf).Encode(m); err != nil {
		t.Fatal(err)
	}
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatal(err)
	}
	return back
}

// savedByEarlier is the index as cmdai saved it before the compact form
// (its exported fields): such files must load unchanged.
type savedByEarlier struct {
	IDs      []string
	Commands []string
	Lens     []int32
	AvgLen   float64
	Postings map[string][]Posting
	Names    map[string]string
	Texts    []string
	Metas    []index.Metadata
}

func TestLoadsAnIndexSavedBeforeTheCompactForm(t *testing.T) {
	docs := compactDocs()
	ix := Build(docs)
	old := savedByEarlier{Commands: ix.commands, Lens: ix.lens, AvgLen: ix.avgLen, Postings: ix.postings, Names: ix.names}
	for _, d := range docs {
		old.IDs, old.Texts, old.Metas = append(old.IDs, d.ID), append(old.Texts, d.Text), append(old.Metas, d.Meta)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(old); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if text, md := back.Chunk(i); text != d.Text || !reflect.DeepEqual(md, throughGob(t, d.Meta)) {
			t.Errorf("chunk %d = %q %+v, want %q %+v", i, text, md, d.Text, d.Meta)
		}
	}
	if !reflect.DeepEqual(back.Search("grep patterns", 10), ix.Search("grep patterns", 10)) {
		t.Error("an earlier file answers differently")
	}
	// A damaged file (lists of different lengths) is an error, not a
	// panic at the first query.
	old.Lens = old.Lens[:2]
	buf.Reset()
	if err := gob.NewEncoder(&buf).Encode(old); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(&buf); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("Load of a damaged index: %v", err)
	}
}

func TestArena(t *testing.T) {
	for _, strs := range [][]string{nil, {""}, {"a", "", "bc", "", ""}} {
		a := newArena(strs)
		if a.len() != len(strs) {
			t.Fatalf("%q: len %d", strs, a.len())
		}
		for i, s := range strs {
			if a.at(i) != s {
				t.Errorf("%q: at(%d) = %q", strs, i, a.at(i))
			}
		}
		if got := a.slice(); len(strs) > 0 && !reflect.DeepEqual(got, strs) {
			t.Errorf("slice %q, want %q", got, strs)
		}
	}
}
