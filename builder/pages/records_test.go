package pages

import (
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/manparse"
)

// The metadata a man page's records are stored with: the keys and value
// types they had before the schema was typed (exports stay identical).
func TestRecordsMetadata(t *testing.T) {
	page, err := manparse.Parse([]byte(`.TH FROB 1 "2026" "GNU frobutils 1.0"
.SH NAME
frob \- frobnicate files
.SH SYNOPSIS
frob [OPTION]... FILE
.SH OPTIONS
.TP
\fB\-f\fR, \fB\-\-force\fR
never ask.
`))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 25, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	opts := Options{Distro: distro.Info{ID: "debian-12", OS: "linux"}, Now: func() time.Time { return at }}
	r := Result{Command: "frob", Path: "/usr/bin/frob", Source: SourceMan, ManPage: "/usr/share/man/man1/frob.1.gz", ManSection: "1",
		Fingerprint: "0123456789abcdef", Aliases: []string{"frobcopy", "unfrob"}, Description: "frobnicate files",
		Package: "frobutils", PackageVersion: "1.0-2", PackagePriority: "optional"}
	recs, _ := records(opts, r, page)
	var opt map[string]any
	for _, rec := range recs {
		if rec.Metadata.Option == "--force" {
			opt = rec.Metadata.ToChroma()
		}
	}
	if opt == nil {
		t.Fatalf("no --force record in %+v", recs)
	}
	want := map[string]any{
		"command": "frob", "section": "OPTIONS", "kind": "option", "option": "--force", "man_section": "1",
		"installed_path": "/usr/bin/frob", "distro": "debian-12", "os": "linux", "source": "man",
		"indexed_at": "2026-11-25T02:04:05Z", "content_hash": opt["content_hash"], "page_source": "GNU frobutils 1.0",
		"package": "frobutils", "package_version": "1.0-2",
		"is_gnu": true, "man_page": "/usr/share/man/man1/frob.1.gz", "fingerprint": "0123456789abcdef",
		"aliases": "frobcopy,unfrob", "description": "frobnicate files",
	}
	if !reflect.DeepEqual(opt, want) {
		t.Errorf("option record metadata:\n got %#v\nwant %#v", opt, want)
	}
	if h, _ := opt["content_hash"].(string); len(h) != 64 {
		t.Errorf("content_hash %q is not a SHA-256", h)
	}

	// a --help page's: no version, man page, fingerprint, aliases or
	// description, but man_section and installed_path all the same
	help := manparse.ParseHelp("tool", []byte("Usage: tool [-v]\n\n  -v, --verbose  say more\n"))
	recs, _ = records(opts, Result{Command: "tool", Path: "/usr/bin/tool", Source: SourceHelp}, help)
	if len(recs) == 0 {
		t.Fatal("no records from --help output")
	}
	var keys []string
	for k := range recs[0].Metadata.ToChroma() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"command", "content_hash", "distro", "indexed_at", "installed_path", "kind", "man_section", "os", "section", "source"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("--help summary record keys %v, want %v", keys, want)
	}
}
