package manparse

import (
	"reflect"
	"strings"
	"testing"
)

const frobHelp = `Usage: frob [OPTION]... FILE...
  or:  frob --reset FILE
Twiddle the bits of each FILE in place.

Options:
  -r, --recursive        descend into directories
  -o, --output=FILE      write the result to FILE
                           instead of in place
      --color[=WHEN]     colour the output
  -h, --help             display this help and exit

Report bugs to nobody.
`

func TestParseHelp(t *testing.T) {
	p := ParseHelp("frob", []byte(frobHelp))
	if p.Format != "help" || p.Name != "frob" {
		t.Fatalf("page: %+v", p)
	}
	if p.Description != "Twiddle the bits of each FILE in place" {
		t.Errorf("description = %q", p.Description)
	}
	if got := p.FindSection("SYNOPSIS").Text(); got != "frob [OPTION]... FILE...\n\nfrob --reset FILE" {
		t.Errorf("synopsis = %q", got)
	}
	want := []Option{
		{Flags: []string{"-r", "--recursive"}, Description: "descend into directories", Section: "OPTIONS"},
		{Flags: []string{"-o", "--output"}, Arg: "FILE", Description: "write the result to FILE instead of in place", Section: "OPTIONS"},
		{Flags: []string{"--color"}, Arg: "[=WHEN]", Description: "colour the output", Section: "OPTIONS"},
		{Flags: []string{"-h", "--help"}, Description: "display this help and exit", Section: "OPTIONS"},
	}
	if !reflect.DeepEqual(p.Options, want) {
		t.Errorf("options:\n got %+v\nwant %+v", p.Options, want)
	}
	cs := p.Chunks(ChunkOptions{})
	ids := chunkIDs(cs)
	if c, ok := ids["frob#OPTIONS#--recursive"]; !ok || !strings.Contains(c.Text, "descend into directories") {
		t.Errorf("help chunks: %v", keys(ids))
	}
	n := 0
	for _, c := range cs {
		n += strings.Count(c.Text, "descend into directories")
	}
	if n != 1 {
		t.Errorf("option text embedded %d times", n)
	}
}

func TestParseHelpOverstrike(t *testing.T) {
	p := ParseHelp("x", []byte("U\bUs\bsa\bag\bge\be:\b: x -v\n\n  -v   be loud\n"))
	if len(p.Options) != 1 || p.Options[0].Flags[0] != "-v" {
		t.Errorf("options = %+v", p.Options)
	}
	if got := p.FindSection("SYNOPSIS"); got == nil || got.Text() != "x -v" {
		t.Errorf("synopsis = %+v", got)
	}
}
