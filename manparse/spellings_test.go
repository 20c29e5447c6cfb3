package manparse

import (
	"reflect"
	"strings"
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
		{"spellings.1", []string{"-a", "--all"}, "", "Show all entries."},                                     // \fB-a\fR, \fB--all\fR
		{"spellings.1", []string{"-b", "--brief"}, "", "Be brief."},                                           // .BR -b ", " --brief
		{"spellings.1", []string{"-c", "--count", "--tally"}, "N", "Count the lines."},                        // .TP then .TQ lines
		{"spellings.1", []string{"--depth", "-d"}, "LEVEL", "Descend LEVEL directories."},                     // long first
		{"spellings.1", []string{"-e", "--level"}, "LEVEL", "Set the level."},                                 // --long=ARG second
		{"spellings.1", []string{"-z", "--gzip"}, "", "Enables gzip compression of tar file output."},         // DocBook: .br between spellings
		{"spellings.1", []string{"-Z", "--compress"}, "level", "Requests compression of the backup."},         // DocBook, a spelling repeated
		{"spellings.1", []string{"-f", "--file"}, "FILE", "Read FILE."},                                       // .IP "tag"
		{"spellings.1", []string{"-q"}, "", "Quiet: -q says nothing."},                                        // a prose line after .br is no spelling
		{"spellings.1", []string{"--details"}, "", "DocBook's entry of one spelling."},                        // ".PP" "--details" ".RS 4"
		{"spellings.1", []string{"-J", "--json"}, "", "Use JSON output."},                                     // the tag ends a paragraph of prose
		{"spellings.1", []string{"-k", "--keep"}, "", "Keep the input."},                                      // bzip2: "-k --keep", no comma
		{"spellings.1", []string{"-S", "--suffix"}, ".suf", "Use suffix .suf."},                               // gzip: "-S .suf --suffix .suf"
		{"spellings.1", []string{"--log-fd"}, "<number> [default: 2, stderr]", "Log to the file descriptor."}, // valgrind: not prose
		{"spellings.1", []string{"--no-underlining"}, "", "No underlining."},                                  // colcrt: "-, --no-underlining"
		{"spellings.1", []string{"-XX:+UseSerialGC"}, "", "Use the serial collector."},                        // java
		{"spellings.1", []string{"-_"}, "", "Strip underscores."},                                             // c++filt
		{"spellings.1", []string{"-D"}, "<NAME=VALUE>", "Define NAME."},                                       // FileCheck
		{"spellings.1", []string{"--wide", "-W"}, "", "Do not truncate addresses."},                           // netstat: .SS heading as tag
		{"spellings-mdoc.1", []string{"-z", "--gzip"}, "", "Compress."},                                       // .It Fl z , Fl Fl gzip
		{"spellings-mdoc.1", []string{"-c", "--count"}, "", "Count."},                                         // .It Fl c , -count
		{"spellings-mdoc.1", []string{"-o", "--output"}, "file", "Write to file."},                            // Fl Fl output Ns = Ns Ar file
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
	p := pages["spellings.1"]
	if n := len(p.Options); n != 19 {
		t.Errorf("spellings.1: %d option entries, want 19: %+v", n, p.Options)
	}
	// the prose before "-J, --json" stays prose, chunked as a paragraph
	if txt := p.FindSection("OPTIONS").Text(); !strings.Contains(txt, "Options that take a column list accept names or numbers.") || strings.Contains(txt, "numbers.\n\n-J") {
		t.Errorf("OPTIONS text lost or kept the prose around -J:\n%s", txt)
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
