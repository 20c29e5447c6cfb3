package builder

import (
	"reflect"
	"testing"
	"time"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/builder/stale"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/index"
)

func TestKeyOfChangesWithTextOrFingerprint(t *testing.T) {
	a := keyOf(index.FromChroma(map[string]any{"content_hash": "h1", "fingerprint": "f1"}))
	if a == keyOf(index.FromChroma(map[string]any{"content_hash": "h2", "fingerprint": "f1"})) || a == keyOf(index.FromChroma(map[string]any{"content_hash": "h1", "fingerprint": "f2"})) {
		t.Error("keyOf ignores a change")
	}
	if a != keyOf(index.FromChroma(map[string]any{"content_hash": "h1", "fingerprint": "f1", "indexed_at": "later"})) {
		t.Error("keyOf depends on more than text and fingerprint")
	}
	// a summary record written before references were kept is rewritten
	// with them
	if a == keyOf(index.FromChroma(map[string]any{"content_hash": "h1", "fingerprint": "f1", "references": "cp,mv"})) {
		t.Error("keyOf ignores the page's references")
	}
}

func TestStaleness(t *testing.T) {
	summary := func(cmd, fp, aliases string) chroma.Record {
		md := map[string]any{"command": cmd, "fingerprint": fp, "kind": "summary"}
		if aliases != "" {
			md["aliases"] = aliases
		}
		return chroma.Record{ID: cmd + ".1#NAME", Metadata: md}
	}
	recs := []chroma.Record{summary("grep", "g1", "egrep,fgrep"), summary("ls", "l1", ""), summary("gone", "x1", "")}
	installed := []pages.Installed{
		{Command: "grep", Fingerprint: "g1"}, {Command: "egrep", Fingerprint: "g1"},
		{Command: "ls", Fingerprint: "l2"},     // upgraded
		{Command: "broken", Fingerprint: "b1"}, // its page failed to parse at build time, unchanged
		{Command: "empty", Fingerprint: "e2"},  // gave no chunk then, changed since
		{Command: "new", Fingerprint: "n1"},    // installed after the build
	}
	skipped := map[string]string{"broken": "b1", "empty": "e1"}
	st := staleness(recs, installed, skipped, true)
	want := &stale.Staleness{Indexed: 3, Changed: 2, Added: 1, Removed: 1, Stale: 4, Names: []string{"~empty", "-gone", "~ls", "+new"}}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got  %+v\nwant %+v", st, want)
	}
}

// Custom docs' records carry the keys they had before the schema was typed.
func TestDocRecordsMetadata(t *testing.T) {
	d, err := customdocs.Parse("deploy.md", []byte("---\ncommand: deploy\n---\n# deploy\n\nShip the site.\n"))
	if err != nil {
		t.Fatal(err)
	}
	d.Fingerprint = "f1"
	recs := docRecords([]customdocs.Doc{d}, distro.Info{ID: "debian-12", OS: "linux"}, time.Date(2026, 11, 25, 3, 4, 5, 0, time.UTC))
	if len(recs) == 0 {
		t.Fatal("no records")
	}
	md := recs[0].Metadata.ToChroma()
	want := map[string]any{"command": "deploy", "kind": "summary", "section": "NAME", "source": "custom", "distro": "debian-12", "os": "linux",
		"indexed_at": "2026-11-25T03:04:05Z", "content_hash": index.ContentHash(recs[0].Text), "fingerprint": "f1", "doc_path": "deploy.md"}
	if d.Description != "" {
		want["description"] = d.Description
	}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("doc record metadata:\n got %#v\nwant %#v", md, want)
	}
}
