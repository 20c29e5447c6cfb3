package manparse

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) *Page {
	t.Helper()
	src, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(src)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return p
}

func findOption(p *Page, flag string) *Option {
	for i := range p.Options {
		for _, f := range p.Options[i].Flags {
			if f == flag {
				return &p.Options[i]
			}
		}
	}
	return nil
}

func TestParseManPage(t *testing.T) {
	p := parseFile(t, "frob.1")
	if p.Format != "man" || p.Name != "frob" || p.Section != "1" {
		t.Fatalf("header: format=%q name=%q section=%q", p.Format, p.Name, p.Section)
	}
	if !reflect.DeepEqual(p.Names, []string{"frob", "unfrob"}) {
		t.Errorf("names = %q", p.Names)
	}
	if p.Description != "twiddle the bits of files in place" {
		t.Errorf("description = %q", p.Description)
	}
	// the string defined with .ds is interpolated into the title line
	if p.Source != "frob 2.4" || p.Date != "March 2026" || p.Manual != "User Commands" {
		t.Errorf("title line: source=%q date=%q manual=%q", p.Source, p.Date, p.Manual)
	}
	want := []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"}
	if got := p.SectionTitles(); !reflect.DeepEqual(got, want) {
		t.Errorf("sections = %q, want %q", got, want)
	}
	if got := p.FindSection("synopsis").Text(); got != "frob [OPTION]... FILE..." {
		t.Errorf("synopsis = %q", got)
	}
	desc := p.FindSection("DESCRIPTION").Text()
	for _, w := range []string{"version 2.4—or later", "Terminal readers see this sentence.", "each FILE, version"} {
		if !strings.Contains(desc, w) {
			t.Errorf("description lacks %q:\n%s", w, desc)
		}
	}
	if strings.Contains(desc, "Typesetters") {
		t.Errorf("the troff-only branch of .if t was taken:\n%s", desc)
	}
	if got := p.FindSection("EXIT STATUS").Text(); !strings.Contains(got, "1 a file could not be read") {
		t.Errorf("tbl table not degraded to text rows: %q", got)
	}
}

func TestParseManOptions(t *testing.T) {
	p := parseFile(t, "frob.1")
	cases := []struct {
		flag      string
		flags     []string
		arg       string
		descStart string
	}{
		{"--recursive", []string{"-r", "--recursive"}, "", "Descend into directories recursively."},
		{"-o", []string{"-o", "--output"}, "FILE", "Write the result to FILE instead of in place."},
		// defined through a user macro whose argument holds escapes
		{"--dry-run", []string{"--dry-run"}, "", "Show what would change"},
		{"--color", []string{"--color"}, "[=WHEN]", "Colour the output; WHEN is never, always or auto."},
	}
	for _, c := range cases {
		o := findOption(p, c.flag)
		if o == nil {
			t.Errorf("option %s not found; have %+v", c.flag, p.Options)
			continue
		}
		if !reflect.DeepEqual(o.Flags, c.flags) || o.Arg != c.arg || !strings.HasPrefix(o.Description, c.descStart) {
			t.Errorf("option %s = %+v", c.flag, *o)
		}
		if o.Section != "OPTIONS" {
			t.Errorf("option %s section = %q", c.flag, o.Section)
		}
	}
	// the .IP paragraph after the .TP body belongs to the same option
	if o := findOption(p, "-r"); o == nil || !strings.Contains(o.Description, "A second paragraph of the same option.") {
		t.Errorf("continuation paragraph lost: %+v", o)
	}
	if len(p.Options) != 4 {
		t.Errorf("got %d options, want 4: %+v", len(p.Options), p.Options)
	}
}

func TestParseExamples(t *testing.T) {
	p := parseFile(t, "frob.1")
	want := []Example{{Description: "Frob a tree, showing what would change:", Command: "frob -r --dry-run src/"}}
	if !reflect.DeepEqual(p.Examples, want) {
		t.Errorf("examples = %+v", p.Examples)
	}
}

func TestParseMdoc(t *testing.T) {
	p := parseFile(t, "wobble.1")
	if p.Format != "mdoc" || p.Name != "wobble" || p.Section != "1" || p.Description != "make a file wobble gently" {
		t.Fatalf("header: %+v", p)
	}
	if got := p.FindSection("SYNOPSIS").Text(); got != "wobble [-nv] [-t seconds] file ..." {
		t.Errorf("synopsis = %q", got)
	}
	if o := findOption(p, "-t"); o == nil || o.Arg != "seconds" || o.Description != "Wobble for seconds seconds (default 5)." {
		t.Errorf("-t = %+v", o)
	}
	if o := findOption(p, "-n"); o == nil || o.Description != "Do not wobble; only report (dry run)." || o.Section != "DESCRIPTION" {
		t.Errorf("-n = %+v", o)
	}
	if len(p.Examples) != 1 || p.Examples[0].Command != "$ wobble -t 10 notes.txt" {
		t.Errorf("examples = %+v", p.Examples)
	}
	if got := p.FindSection("SEE ALSO").Text(); got != "shake(1)" {
		t.Errorf("see also = %q", got)
	}
}

func TestEscapes(t *testing.T) {
	src := ".TH X 1\n.SH NAME\nx \\- y\n.SH DESCRIPTION\n" +
		".ds Q quoted\n" +
		"\\fBbold\\fR \\fIital\\fP a\\-b \\(em \\[em] \\e \\*Q \\*(lq\\*(rq \\(co \\&. \\(aq\\(dq end\\\" comment\n"
	p, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := p.FindSection("DESCRIPTION").Text()
	want := "bold ital a-b — — \\ quoted “” © . '\" end"
	if got != want {
		t.Errorf("escapes:\n got %q\nwant %q", got, want)
	}
}

func TestParseRejectsNonRoff(t *testing.T) {
	for _, src := range []string{"", "\x00\x01\x02binary", "just some text\nwith no requests\n"} {
		if _, err := Parse([]byte(src)); !errors.Is(err, ErrNotRoff) {
			t.Errorf("Parse(%q) error = %v, want ErrNotRoff", src, err)
		}
	}
}

func TestParseLimits(t *testing.T) {
	// a macro that calls itself must stop, not recurse forever
	src := ".TH LOOP 1\n.de X\n.X\n..\n.SH NAME\nloop \\- recursion\n.X\n"
	p, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "loop" {
		t.Errorf("name = %q", p.Name)
	}
	// a string that doubles itself on each interpolation stays bounded
	src = ".TH BOMB 1\n.ds a xx\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.ds a \\*a\\*a\n.SH NAME\nbomb \\- \\*a\n"
	if _, err := Parse([]byte(src)); err != nil && !errors.Is(err, ErrTooLarge) {
		t.Fatal(err)
	}
	if _, err := Parse(make([]byte, 17<<20)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("17 MiB input: error = %v, want ErrTooLarge", err)
	}
}

// References are the pages a page names as "name(N)": in SEE ALSO (.BR,
// .Xr) and in its prose, each once, lowercased and sorted, never the
// page's own names.
func TestPageReferences(t *testing.T) {
	src := ".TH FROB 1\n.SH NAME\nfrob, unfrob \\- frobnicate files\n.SH DESCRIPTION\n" +
		"Like \\fBcp\\fR(1) but slower; see also \\fBfrob\\fP(1) and unfrob(1).\n" +
		"Reads \\fIfrob.conf\\fR(5), not systemd.unit(5).\n" +
		".SH SEE ALSO\n.BR cp (1),\n.BR MV (1),\n.BR cp (1)\n"
	p, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cp", "frob.conf", "mv", "systemd.unit"}
	if got := p.References(); !reflect.DeepEqual(got, want) {
		t.Errorf("References() = %q, want %q", got, want)
	}
	wobble := parseFile(t, "wobble.1")
	if got := wobble.References(); !reflect.DeepEqual(got, []string{"shake"}) {
		t.Errorf("mdoc .Xr: References() = %q, want [shake]", got)
	}
}

// A macro that calls itself twice turns a few bytes into megabytes of
// text; the parser stops once its text lines pass maxTextBytes, so that
// chunking such a page stays quick (FuzzParse found two that did not).
func TestSelfExpandingMacroIsBounded(t *testing.T) {
	long := strings.Repeat("X", 200)
	p, err := Parse([]byte(".de X\n.X\nde " + long + "\n.X\n..\n.X\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Text()); n > maxTextBytes*21/20 || n < maxTextBytes/2 { // Text() adds indents and titles
		t.Errorf("page text is %d bytes, want about maxTextBytes (%d)", n, maxTextBytes)
	}
}
