package manparse

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary roff to the parser: it must not panic or hang,
// and whatever it returns must chunk into unique ids within the budget.
// Run it with: go test ./manparse -run '^$' -fuzz FuzzParse -fuzztime 5m
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.[0-9]")
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range []string{
		".TH A 1\n.SH NAME\na \\- b\n",
		".de X\n.X\n..\n.X\n",
		".ds a \\*a\\*a\n\\*a\n",
		".if n \\{\\\n.SH X\n.\\}\n",
		".Dd\n.Sh NAME\n.Nm a\n.Nd b\n.Bl -tag\n.It Fl x Ar y\nz\n",
		".TS\nallbox;\nl l.\na\tb\n.TE\n",
		".TH A 1\n.SH OPTIONS\n.TP\n\\fB\\-x\\fR, \\fB\\-\\-xx\\fR=\\fIN\\fR\nx\n.RS\n.IP\ny\n.RE\n",
		"\\(em\\[u2014]\\*(lq\\e\\&\\c\\w'abc'\\h'1i'\\s+2\\f(CW",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse(src)
		if err != nil {
			if !errors.Is(err, ErrNotRoff) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range p.Chunks(ChunkOptions{MaxTokens: 64}) {
			if seen[c.ID] {
				t.Fatalf("duplicate chunk id %q", c.ID)
			}
			seen[c.ID] = true
			if c.Tokens > 64 {
				t.Fatalf("chunk %q has %d tokens > 64", c.ID, c.Tokens)
			}
		}
	})
}

// FuzzParseHelp does the same for --help output.
func FuzzParseHelp(f *testing.F) {
	f.Add([]byte(frobHelp))
	f.Add([]byte("Usage:\n  -\n  --\t\n\b\b"))
	f.Fuzz(func(t *testing.T, out []byte) {
		p := ParseHelp("x", out)
		seen := map[string]bool{}
		for _, c := range p.Chunks(ChunkOptions{MaxTokens: 64}) {
			if seen[c.ID] || c.Tokens > 64 {
				t.Fatalf("chunk %q: duplicate or %d tokens", c.ID, c.Tokens)
			}
			seen[c.ID] = true
		}
	})
}
