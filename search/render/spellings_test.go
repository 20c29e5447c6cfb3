package render

import (
	"strings"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// TestOptionFromDocBookEntry looks an option up by each of its spellings
// in records made from a page written as DocBook writes pg_basebackup's
// ("-z" ".br" "--gzip"): before, the record was "-z" alone, with
// "--gzip" at the head of its description, and --gzip was not found.
func TestOptionFromDocBookEntry(t *testing.T) {
	src := ".TH PG_BASEBACKUP 1\n.SH NAME\npg_basebackup \\- take a base backup\n.SH OPTIONS\n" +
		".PP\n\\fB\\-z\\fR\n.br\n\\fB\\-\\-gzip\\fR\n.RS 4\nEnables gzip compression of tar file output\\&.\n.RE\n"
	p, err := manparse.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	doc := search.CommandDoc{CommandHit: shown.CommandHit{Command: "pg_basebackup"}}
	for _, c := range p.Chunks(manparse.ChunkOptions{}) {
		doc.Records = append(doc.Records, shown.Match{ID: c.ID, Kind: index.Kind(c.Kind), Section: c.Section, Option: c.Option, Text: c.Text})
	}
	for _, flag := range []string{"-z", "--gzip", "gzip"} {
		got, err := Option(doc, flag)
		if err != nil || got != "pg_basebackup -z, --gzip\nEnables gzip compression of tar file output.\n" {
			t.Errorf("%s: %q, %v", flag, got, err)
		}
	}
	if got := Docs(doc, PartOptions, 0); !strings.Contains(got, "-z, --gzip") {
		t.Errorf("options part lacks -z, --gzip:\n%s", got)
	}
}
