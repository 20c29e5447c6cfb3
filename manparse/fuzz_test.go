package manparse

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// checkChunks chunks p with a small budget (to stress splitting) named
// by the page, and as the pipeline does (the model's budget, named by the
// command, then the prose budget), and checks that ids are unique and
// every chunk fits.
func checkChunks(p *Page) error {
	for _, o := range []ChunkOptions{{MaxTokens: 64}, {MaxTokens: DefaultMaxTokens, Command: "x"}} {
		max := o.MaxTokens
		cs := p.Chunks(o)
		seen := map[string]bool{}
		for _, c := range cs {
			if seen[c.ID] {
				return fmt.Errorf("max %d: duplicate chunk id %q", max, c.ID)
			}
			seen[c.ID] = true
			if c.Tokens > max {
				return fmt.Errorf("chunk %q has %d tokens > %d", c.ID, c.Tokens, max)
			}
		}
		if kept, dropped := Budget(cs, 512); len(kept)+dropped != len(cs) {
			return fmt.Errorf("max %d: Budget kept %d and dropped %d of %d chunks", max, len(kept), dropped, len(cs))
		}
	}
	return nil
}

// FuzzParse feeds arbitrary roff to the parser: it must not panic or hang,
// and whatever it returns must chunk into unique ids within the budget.
// Run it with `make fuzz` (scripts/ci/fuzz.sh), which also fails a run that
// stalls. An input that hangs needs no bound here: Go's fuzz worker
// panics after 10 s on one input, and the input is saved as a crash.
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
		if err := checkChunks(p); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzParseHelp does the same for --help output.
func FuzzParseHelp(f *testing.F) {
	f.Add([]byte(frobHelp))
	f.Add([]byte("Usage:\n  -\n  --\t\n\b\b"))
	f.Fuzz(func(t *testing.T, out []byte) {
		if err := checkChunks(ParseHelp("x", out)); err != nil {
			t.Fatal(err)
		}
	})
}
