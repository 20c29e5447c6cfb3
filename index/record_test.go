package index

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

var stamp = time.Date(2026, 11, 25, 3, 4, 5, 0, time.UTC)

// manMeta and docMeta set every field their source stores.
var (
	manMeta = Metadata{
		Command: "frob", Kind: KindOption, Section: "OPTIONS", Option: "--force", Source: SourceMan,
		Distro: "debian-12", OS: "linux", IndexedAt: stamp, ContentHash: ContentHash("frob(1) option -f, --force"),
		Fingerprint: "0123456789abcdef", PageSource: "GNU frobutils 1.0", IsGNU: true,
		Description: "frobnicate files", Aliases: []string{"frobcopy", "unfrob"},
		ManSection: "1", InstalledPath: "/usr/bin/frob", ManPage: "/usr/share/man/man1/frob.1.gz",
		Package: "frobutils", PackageVersion: "1.0-2+deb12u1", References: []string{"cp", "mv"},
	}
	docMeta = Metadata{
		Command: "deploy", Kind: KindExample, Section: "EXAMPLES", Source: SourceCustom,
		Distro: "debian-12", OS: "linux", IndexedAt: stamp, ContentHash: ContentHash("deploy example"),
		Fingerprint: "fedcba9876543210", Version: "2.1", Description: "ship the site",
		Aliases: []string{"dep"}, DocPath: "/home/u/.config/cmdai/commands/deploy.md",
		Priority: "high", Keywords: []string{"release", "publish"}, RelevantFor: "web team",
	}
)

func TestMetadataRoundTrip(t *testing.T) {
	for name, m := range map[string]Metadata{
		"man page, every field":   manMeta,
		"custom doc, every field": docMeta,
		// optional fields absent
		"help output, bare":    {Command: "tool", Kind: KindSummary, Section: "NAME", Source: SourceHelp, IndexedAt: stamp, ContentHash: "h"},
		"hint, bare":           {Command: "tool", Kind: KindSection, Section: "HINT", Source: SourceHint, IndexedAt: stamp, ContentHash: "h"},
		"man page, not GNU":    {Command: "ls", Kind: KindSummary, Source: SourceMan, PageSource: "BSD", IndexedAt: stamp},
		"man page, no version": {Command: "ls", Kind: KindSummary, Source: SourceMan, IndexedAt: stamp},
	} {
		md := m.ToChroma()
		for k, v := range md {
			switch v.(type) {
			case string, bool:
			default:
				t.Errorf("%s: %s is a %T: Chroma takes scalars only", name, k, v)
			}
		}
		// what Chroma hands back went through JSON
		b, err := json.Marshal(md)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := FromChroma(back); !reflect.DeepEqual(got, m) {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", name, got, m)
		}
	}
}

// The keys and values stored are those records had before the schema was
// typed: exports must stay byte-identical.
func TestToChromaKeys(t *testing.T) {
	want := map[string]any{
		"command": "frob", "kind": "option", "section": "OPTIONS", "option": "--force", "source": "man",
		"distro": "debian-12", "os": "linux", "indexed_at": "2026-11-25T03:04:05Z",
		"content_hash": manMeta.ContentHash, "fingerprint": "0123456789abcdef",
		"page_source": "GNU frobutils 1.0", "is_gnu": true, "description": "frobnicate files", "aliases": "frobcopy,unfrob",
		"man_section": "1", "installed_path": "/usr/bin/frob", "man_page": "/usr/share/man/man1/frob.1.gz",
		"package": "frobutils", "package_version": "1.0-2+deb12u1", "references": "cp,mv",
	}
	if got := manMeta.ToChroma(); !reflect.DeepEqual(got, want) {
		t.Errorf("man page record:\n got %#v\nwant %#v", got, want)
	}
	// a page's record always has man_section and installed_path, even
	// empty, and no fingerprint, man_page or is_gnu when it has none
	bare := Metadata{Command: "tool", Kind: KindSummary, Section: "NAME", Source: SourceHelp, Distro: "d", OS: "linux", IndexedAt: stamp, ContentHash: "h"}
	want = map[string]any{"command": "tool", "kind": "summary", "section": "NAME", "source": "help", "distro": "d", "os": "linux",
		"indexed_at": "2026-11-25T03:04:05Z", "content_hash": "h", "man_section": "", "installed_path": ""}
	if got := bare.ToChroma(); !reflect.DeepEqual(got, want) {
		t.Errorf("bare help record:\n got %#v\nwant %#v", got, want)
	}

	want = map[string]any{
		"command": "deploy", "kind": "example", "section": "EXAMPLES", "source": "custom",
		"distro": "debian-12", "os": "linux", "indexed_at": "2026-11-25T03:04:05Z",
		"content_hash": docMeta.ContentHash, "fingerprint": "fedcba9876543210", "doc_path": "/home/u/.config/cmdai/commands/deploy.md",
		"version": "2.1", "description": "ship the site", "aliases": "dep",
		"priority": "high", "keywords": "release,publish", "relevant_for": "web team",
	}
	if got := docMeta.ToChroma(); !reflect.DeepEqual(got, want) {
		t.Errorf("custom doc record:\n got %#v\nwant %#v", got, want)
	}
	// a doc's record always has fingerprint and doc_path, and never is_gnu
	bare = Metadata{Command: "tool", Kind: KindSection, Section: "HINT", Source: SourceHint, IndexedAt: stamp, ContentHash: "h", Version: "GNU 1"}
	want = map[string]any{"command": "tool", "kind": "section", "section": "HINT", "source": "hint", "distro": "", "os": "",
		"indexed_at": "2026-11-25T03:04:05Z", "content_hash": "h", "fingerprint": "", "doc_path": "", "version": "GNU 1"}
	if got := bare.ToChroma(); !reflect.DeepEqual(got, want) {
		t.Errorf("bare hint record:\n got %#v\nwant %#v", got, want)
	}
}

// A record's JSON (`index scan --json`) holds the metadata as stored.
func TestRecordJSON(t *testing.T) {
	r := Record{ID: "frob.1#OPTIONS#--force", Text: "frob(1) option -f, --force", Tokens: 9, Metadata: manMeta}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": r.ID, "text": r.Text, "tokens": float64(9), "metadata": map[string]any{}}
	for k, v := range manMeta.ToChroma() {
		want["metadata"].(map[string]any)[k] = v
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON:\n got %v\nwant %v", got, want)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("JSON round trip: %v\n got %+v\nwant %+v", err, back, r)
	}
}

// Indexes written before page_source and package were kept (schema 1
// too) held a page's title-line source field as "version": it reads back
// as the page source, and no version is shown for it ("TAR" is not one).
func TestLegacyPageVersion(t *testing.T) {
	old := map[string]any{"command": "tar", "kind": "summary", "source": "man", "version": "TAR", "is_gnu": false,
		"man_section": "1", "installed_path": "/usr/bin/tar"}
	m := FromChroma(old)
	if m.PageSource != "TAR" || m.Version != "" || m.ShownVersion() != "" || m.Package != "" {
		t.Errorf("old tar record read as %+v (shown version %q), want page source TAR and no version", m, m.ShownVersion())
	}
	// a record rewritten over an old one may keep the old key beside the
	// new ones: page_source and package win
	old["page_source"], old["package"], old["package_version"] = "TAR", "tar", "1.34+dfsg-1.2"
	if m := FromChroma(old); m.PageSource != "TAR" || m.ShownVersion() != "1.34+dfsg-1.2" || m.Package != "tar" {
		t.Errorf("rewritten tar record read as %+v, want the package's version", m)
	}
	// a doc keeps its own version
	if v := docMeta.ShownVersion(); v != "2.1" {
		t.Errorf("doc's shown version %q, want its own 2.1", v)
	}
	// a page no package owns shows none, whatever its source field says
	if v := (Metadata{Source: SourceMan, PageSource: "Info-ZIP"}).ShownVersion(); v != "" {
		t.Errorf("unowned page's shown version %q, want none", v)
	}
}

func TestPlacing(t *testing.T) {
	coll := map[string]any{"model": "m", "distro": "debian-12", "os": "linux", "complete": true, "future_key": 3}
	got := Placed(coll, "ubuntu-24.04", "linux")
	SetComplete(got, false)
	want := map[string]any{"model": "m", "distro": "ubuntu-24.04", "os": "linux", "complete": false, "future_key": 3}
	if !reflect.DeepEqual(got, want) || coll["distro"] != "debian-12" || coll["complete"] != true {
		t.Errorf("Placed: %v (from %v)", got, coll)
	}
	rec := map[string]any{"command": "frob", "distro": "debian-12", "os": "linux", "unknown": "kept"}
	PlaceRecord(rec, "ubuntu-24.04", "linux")
	if rec["distro"] != "ubuntu-24.04" || rec["unknown"] != "kept" {
		t.Errorf("PlaceRecord: %v", rec)
	}
	bare := map[string]any{"command": "frob"}
	PlaceRecord(bare, "ubuntu-24.04", "linux")
	if len(bare) != 1 {
		t.Errorf("PlaceRecord added keys to a record without them: %v", bare)
	}
}
