package manparse

import "testing"

// SplitChunk reads back the headings the chunker writes.
func TestSplitChunk(t *testing.T) {
	p, err := Parse([]byte(`.TH FROB 1
.SH NAME
frob \- frobnicate files
.SH OPTIONS
.TP
\fB\-o\fR, \fB\-\-output\fR=\fIFILE\fR
write to FILE. Then more.
.SH EXAMPLES
Frobnicate a file:
.PP
.nf
frob -o out in
.fi
`))
	if err != nil {
		t.Fatal(err)
	}
	var opt, ex *Chunk
	cs := p.Chunks(ChunkOptions{})
	for i := range cs {
		switch cs[i].Kind {
		case KindOption:
			opt = &cs[i]
		case KindExample:
			ex = &cs[i]
		}
	}
	if opt == nil || ex == nil {
		t.Fatalf("no option or example chunk: %+v", cs)
	}
	if label, body := SplitChunk(opt.Kind, opt.Text); label != "-o, --output FILE" || body != "write to FILE. Then more." {
		t.Errorf("option %q: label %q, body %q", opt.Text, label, body)
	}
	if label, body := SplitChunk(ex.Kind, ex.Text); label != "frob(1) example" || body == "" || body[len(body)-len("frob -o out in"):] != "frob -o out in" {
		t.Errorf("example %q: label %q, body %q", ex.Text, label, body)
	}
	for _, c := range []struct{ kind, text, label, body string }{
		{KindOption, "tool option -v", "-v", ""},
		{KindExample, "one line only", "", "one line only"},
		{KindSummary, "tool - does things\nUsage: tool", "tool - does things", "Usage: tool"},
	} {
		if l, b := SplitChunk(c.kind, c.text); l != c.label || b != c.body {
			t.Errorf("SplitChunk(%s, %q) = %q, %q; want %q, %q", c.kind, c.text, l, b, c.label, c.body)
		}
	}
}
