package kwstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
)

// fake is a collection of records in memory.
type fake struct{ recs []chroma.Record }

func (f *fake) Name() string                                                 { return "fake" }
func (f *fake) Metadata() map[string]any                                     { return nil }
func (f *fake) Count(context.Context) (int, error)                           { return len(f.recs), nil }
func (f *fake) All(context.Context, chroma.Include) ([]chroma.Record, error) { return f.recs, nil }

func record(id, cmd, text string, md map[string]any) chroma.Record {
	m := map[string]any{"command": cmd, "kind": "summary"}
	for k, v := range md {
		m[k] = v
	}
	return chroma.Record{ID: id, Document: text, Metadata: m}
}

func fixture() *fake {
	return &fake{recs: []chroma.Record{
		record("alpha#NAME", "alpha", "alpha - list directory contents", nil),
		record("beta#NAME", "beta", "beta - compress data", nil),
		record("gamma#NAME", "gamma", "gamma - compress archive files, compress an archive", nil),
	}}
}

// What ranking and printing read of a chunk's metadata is kept,
// the subcommand page's parent among it; the build's bookkeeping is not.
func TestBuildKeepsWhatSearchReads(t *testing.T) {
	f := &fake{recs: []chroma.Record{record("git-mv.1#NAME", "git-mv", "git-mv - move a file",
		map[string]any{"parent_command": "git", "description": "move a file", "content_hash": "abc", "man_section": "1"})}}
	ix, err := Build(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	_, md := ix.Chunk(0)
	if md.Parent != "git" || md.Description != "move a file" || md.ManSection != "1" || md.ContentHash != "" {
		t.Errorf("kept %+v", md)
	}
}

// The BM25 index is saved beside the others under a name that changes
// with the collection, and read back on the next search.
func TestKeywordIndexIsKept(t *testing.T) {
	f := fixture()
	dir := t.TempDir()
	ix, err := Open(context.Background(), f, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(f.recs) {
		t.Errorf("indexed %d chunks, want %d", ix.Len(), len(f.recs))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fake-*.bm25"))
	if len(files) != 1 {
		t.Fatalf("saved %v, want one fake-*.bm25", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil || fi.Size() == 0 {
		t.Errorf("saved index %s: %v", files[0], err)
	}
	// What a query reads when Chroma is down: the same chunks, with text.
	saved, path, err := Saved(dir, "fake")
	if err != nil || path != files[0] || saved.Len() != len(f.recs) || !saved.HasChunks() {
		t.Fatalf("Saved = %d chunks (with text: %v) from %q, %v; want %d from %s", saved.Len(), saved.HasChunks(), path, err, len(f.recs), files[0])
	}
	if text, md := saved.Chunk(2); text != f.recs[2].Document || md.Command != "gamma" {
		t.Errorf("saved chunk 2 = %q of %q, want gamma's summary", text, md.Command)
	}
}

// A keyword index saved by an older cmdai, without the chunks' text, is
// rebuilt by Open and refused by Saved (which cannot
// rebuild it: Chroma is down when it is called).
func TestKeywordIndexWithoutChunksIsRebuilt(t *testing.T) {
	f := fixture()
	dir := t.TempDir()
	ix, err := Open(context.Background(), f, dir)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fake-*.bm25"))
	if len(files) != 1 {
		t.Fatalf("saved %v, want one file", files)
	}
	ix = ix.WithoutChunks()
	w, err := os.Create(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Save(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, _, err := Saved(dir, "fake"); err == nil || !strings.Contains(err.Error(), "older cmdai") {
		t.Errorf("Saved of an old file: %v, want an error naming an older cmdai", err)
	}
	again, err := Open(context.Background(), f, dir)
	if err != nil || !again.HasChunks() {
		t.Fatalf("Open over an old file: chunks %v, %v; want it rebuilt", again != nil && again.HasChunks(), err)
	}
	if _, _, err := Saved(t.TempDir(), "fake"); err == nil || !strings.Contains(err.Error(), "no keyword index") {
		t.Errorf("Saved of an empty directory: %v, want \"no keyword index\"", err)
	}
}
