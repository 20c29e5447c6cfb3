package manparse

import (
	"reflect"
	"testing"
)

// TestOptionSpellings checks that every spelling of an option entry is
// kept, whatever shape its tag takes in the page source: the rendered
// page shows them all on the tag line(s), so the option record must too.
func TestOptionSpellings(t *testing.T) {
	cases := []struct {
		page  string
		flags []string
		arg   string
		desc  string
	}{
		{"spellings.1", []string{"-a", "--all"}, "", "Show all entries."},                             // \fB-a\fR, \fB--all\fR
		{"spellings.1", []string{"-b", "--brief"}, "", "Be brief."},                                   // .BR -b ", " --brief
		{"spellings.1", []string{"-c", "--count", "--tally"}, "N", "Count the lines."},                // .TP then .TQ lines
		{"spellings.1", []string{"--depth", "-d"}, "LEVEL", "Descend LEVEL directories."},             // long first
		{"spellings.1", []string{"-e", "--level"}, "LEVEL", "Set the level."},                         // --long=ARG second
		{"spellings.1", []string{"-z", "--gzip"}, "", "Enables gzip compression of tar file output."}, // DocBook: .br between spellings
		{"spellings.1", []string{"-Z", "--compress"}, "level", "Requests compression of the backup."}, // DocBook, a spelling repeated
		{"spellings.1", []string{"-f", "--file"}, "FILE", "Read FILE."},                               // .IP "tag"
		{"spellings.1", []string{"-q"}, "", "Quiet: -q says nothing."},                                // a prose line after .br is no spelling
		{"spellings-mdoc.1", []string{"-z", "--gzip"}, "", "Compress."},                               // .It Fl z , Fl Fl gzip
		{"spellings-mdoc.1", []string{"-c", "--count"}, "", "Count."},                                 // .It Fl c , -count
		{"spellings-mdoc.1", []string{"-o", "--output"}, "file", "Write to file."},                    // Fl Fl output Ns = Ns Ar file
		{"spellings-mdoc.1", []string{"-v"}, "", "Verbose."},
	}
	pages := map[string]*Page{}
	for _, c := range cases {
		p := pages[c.page]
		if p == nil {
			p = parseFile(t, c.page)
			pages[c.page] = p
		}
		o := findOption(p, c.flags[0])
		if o == nil {
			t.Errorf("%s: no option %s among %d", c.page, c.flags[0], len(p.Options))
			continue
		}
		if !reflect.DeepEqual(o.Flags, c.flags) || o.Arg != c.arg || o.Description != c.desc {
			t.Errorf("%s %s: got flags %q arg %q description %q; want %q %q %q",
				c.page, c.flags[0], o.Flags, o.Arg, o.Description, c.flags, c.arg, c.desc)
		}
	}
	if n := len(pages["spellings.1"].Options); n != 9 {
		t.Errorf("spellings.1: %d option entries, want 9: %+v", n, pages["spellings.1"].Options)
	}
}

// TestOptionChunkKeepsSpellings checks the record an option becomes: its
// heading names every spelling, so a lookup by any one finds it, while
// the id keeps the first long spelling as before.
func TestOptionChunkKeepsSpellings(t *testing.T) {
	p := parseFile(t, "spellings.1")
	var got *Chunk
	chunks := p.Chunks(ChunkOptions{})
	for i := range chunks {
		if chunks[i].Kind == KindOption && chunks[i].Option == "--gzip" {
			got = &chunks[i]
		}
	}
	if got == nil {
		t.Fatalf("no option chunk for --gzip among %d chunks", len(chunks))
	}
	label, body := SplitChunk(got.Kind, got.Text)
	if got.ID != "spellings.1#OPTIONS#--gzip" || label != "-z, --gzip" || body != "Enables gzip compression of tar file output." {
		t.Errorf("chunk id %q label %q body %q", got.ID, label, body)
	}
}
