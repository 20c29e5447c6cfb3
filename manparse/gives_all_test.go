package manparse

import (
	"reflect"
	"strings"
	"testing"
)

// The page gives all it has (issue 43, item 4): the constructs behind
// the worst misses of scripts/research/option-recall.py, each in a page
// of our own under testdata, and the records they must give.

// TestNestedOptionEntries: an option entry set inside another's body is
// an entry of its own (ss leaves an .RS open after --tipcinfo, so -t,
// -u, -x, -4, -6 ... used to be --tipcinfo's description; as lists -ac,
// -ad under -a), while value tags stay in their option's description.
func TestNestedOptionEntries(t *testing.T) {
	p := parseFile(t, "quern.8")
	cases := []struct {
		flag  string
		flags []string
		arg   string
		desc  string
	}{
		{"--kill", []string{"-K", "--kill"}, "", "Close the sockets shown."},
		{"--tcp", []string{"-t", "--tcp"}, "", "Show TCP sockets."},
		{"--ipv4", []string{"-4", "--ipv4"}, "", "Show IPv4 sockets only."},
		{"--rings", []string{"--rings"}, "", "Show ring information."},
		{"-lc", []string{"-lc"}, "", "list the counters"},
		{"-ld", []string{"-ld"}, "", "list the drops"},
		// a heading tag with no body is no alias of the entry after it
		{"--graph", []string{"-g", "--graph"}, "", "Draw a graph of the table."},
		// .B "\-\-show\\-limits": the escaped backslash is one in groff's copy mode
		{"--show-limits", []string{"--show-limits"}, "", "Show the limits the kernel imposes."},
		// last's "-number; -n, --limit number"
		{"--limit", []string{"-number", "-n", "--limit"}, "number", "Show this many sockets."},
	}
	for _, c := range cases {
		o := findOption(p, c.flag)
		if o == nil {
			t.Errorf("%s: no entry among %d", c.flag, len(p.Options))
			continue
		}
		if !reflect.DeepEqual(o.Flags, c.flags) || o.Arg != c.arg || o.Description != c.desc {
			t.Errorf("%s: got flags %q arg %q description %q; want %q %q %q", c.flag, o.Flags, o.Arg, o.Description, c.flags, c.arg, c.desc)
		}
	}
	// what is not an option stays in its entry's description: a field
	// list, a non-flag tag and the paragraph after the nested list, the
	// option's own spelling with a value, a usage of it
	for flag, want := range map[string][]string{
		"--stats":   {"drops", "packets dropped on the way in"},
		"-l":        {"=file", "name the listing file", "Combine them as in -lcd."},
		"--discard": {"--discard=once", "discard buffers as they are freed"},
		"--proto":   {"--proto -all,udp", "shows udp alone"},
	} {
		o := findOption(p, flag)
		if o == nil {
			t.Errorf("%s: no entry", flag)
			continue
		}
		for _, w := range want {
			if !strings.Contains(o.Description, w) {
				t.Errorf("%s: description lacks %q: %q", flag, w, o.Description)
			}
		}
	}
	if o := findOption(p, "--discard"); o == nil || o.Flags[0] != "-d" {
		t.Errorf("--discard=pages taken as an entry of its own: %+v", o)
	}
	if o := findOption(p, "-all"); o != nil {
		t.Errorf("a usage of --proto taken as an entry: %+v", o)
	}
	if len(p.Options) != 14 {
		for _, o := range p.Options {
			t.Logf("%q %q", o.Flags, o.Arg)
		}
		t.Errorf("%d entries, want 14", len(p.Options))
	}
}

// TestGeneratedOptionShapes: DocBook's spellings on one line however long,
// help2man's hanging paragraphs, rst2man's en dash, and usage texts set
// as displays (prove, pyenv, perf's AsciiDoc "-k::" lines) give entries;
// a display of ls -l output does not.
func TestGeneratedOptionShapes(t *testing.T) {
	p := parseFile(t, "tallow.1")
	cases := []struct {
		flags []string
		arg   string
		desc  string
	}{
		{[]string{"--wick-length", "--wick-width", "--wick-material", "--wick-coating"}, "LENGTH", "Set the measures and the material of the wick."},
		{[]string{"--no-scent", "--no-colour", "--no-glitter", "--no-label", "--no-box", "--no-ribbon", "--no-wrapping"}, "", "Leave out the extras."},
		{[]string{"--melt"}, "<uint>", "Melting point in degrees"},
		{[]string{"--pour"}, "", "Pour the wax"},
		{[]string{"--dip-count"}, "n", "Dip the wick n times."},
		{[]string{"-v", "--verbose"}, "", "Say what is being poured."},
		{[]string{"-q", "--quiet"}, "", "Say nothing."},
		{[]string{"--dry"}, "", "Pour nothing; show what would be poured and where."},
		{[]string{"-j", "--jobs"}, "N", "Pour N candles at once."},
		{[]string{"-k", "--kind"}, "<value>", "Candle kind: taper or pillar."},
		{[]string{"-s", "--size"}, "<value>", "Candle size in centimetres."},
	}
	var got []Option
	for _, o := range p.Options {
		got = append(got, Option{Flags: o.Flags, Arg: o.Arg, Description: o.Description})
	}
	var want []Option
	for _, c := range cases {
		want = append(want, Option{Flags: c.flags, Arg: c.arg, Description: c.desc})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", got, want)
	}
	// the display's lines that are not entries are still embedded, the
	// entries' lines once (in their option records); the reader's text
	// keeps them all
	var options, usage bool
	for _, c := range p.Chunks(ChunkOptions{}) {
		switch {
		case c.Kind == KindSection && strings.Contains(c.Text, "Say what is being poured"):
			t.Errorf("an entry of the usage display embedded twice: %q", c.Text)
		case c.Kind == KindSection && strings.Contains(c.Text, "Usage: tallow [options] FILE"):
			usage = true
		case c.Kind == KindOption && c.Option == "--verbose" && strings.Contains(c.Text, "Say what is being poured."):
			options = true
		}
	}
	if !usage || !options {
		t.Errorf("chunks: usage line embedded %v, --verbose record %v", usage, options)
	}
	text := p.Text()
	for _, w := range []string{"Say what is being poured.", "-rw-r--r-- 1 wax wax 120 Apr 1 taper.svg"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), w) {
			t.Errorf("page text lacks %q", w)
		}
	}
}

// TestExamplesKeepTheirCommands: an example's description, command and
// notes are one record whatever shape the page gives them. find's
// bulleted items used to end in the bullet ("...hours.\n\n•"), their
// command a record apart; DocBook's ".PP" command ".RS 4" description
// came out as two records.
func TestExamplesKeepTheirCommands(t *testing.T) {
	p := parseFile(t, "spindle.1")
	want := []Example{
		{Description: "Spin the yarn in wool.txt and keep the input.", Command: "$ spindle -k wool.txt",
			Notes: "Note that the thread replaces any older thread of the same name."},
		{Description: "Spin the files changed in the last day.", Command: "$ spindle --newer 1d ."},
		{Description: "Lists the spools.", Command: "spindle list"},
		{Description: "Lists the spools with their lengths.", Command: "spindle list --long"},
		// bodiless tagged commands are three examples, not one with aliases
		{Command: "spindle -k a.txt"},
		{Command: "spindle -r dir"},
		{Command: "spindle --dry-run b.txt"},
		{Description: "To spin what another program prints, use", Command: "cat wool.txt | spindle -k -"},
		{Description: "Record the yarn first:", Command: "$ spindle record"},
		// a short introduction set as a display, a prompt after it
		{Description: "then spin it:", Command: "$ spindle --from-record"},
		// command lines as bullets below the step that introduces them
		{Description: "Make two spools, running the following commands:", Command: "spindle new a"},
		{Command: "spindle new b"},
	}
	if !reflect.DeepEqual(p.Examples, want) {
		t.Errorf("examples:\n got %+v\nwant %+v", p.Examples, want)
	}
	var first string
	for _, c := range p.Chunks(ChunkOptions{}) {
		if c.ID == "spindle.1#EXAMPLES#1" {
			first = c.Text
		}
		if c.Kind == KindExample && strings.Contains(c.Text, "•") {
			t.Errorf("a bullet in an example record: %q", c.Text)
		}
	}
	wantText := "spindle(1) example\nSpin the yarn in wool.txt and keep the input.\n\n$ spindle -k wool.txt\n\n" +
		"Note that the thread replaces any older thread of the same name."
	if first != wantText {
		t.Errorf("first example record = %q, want %q", first, wantText)
	}
}
