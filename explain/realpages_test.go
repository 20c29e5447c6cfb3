package explain

// Tests on this machine's real man pages: each page is parsed and chunked
// the way `cmdai index` does (scanner, manparse) and read back through
// search.DocOf, so Explain sees what an index of this machine would hold.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/testmode"
)

var (
	manOnce sync.Once
	manIx   *scanner.ManIndex
	manErr  error
)

// realLookup is a Lookup over the installed man pages.
func realLookup(t testing.TB) Lookup {
	t.Helper()
	testmode.Heavy(t, "man pages")
	manOnce.Do(func() {
		roots := scanner.ManPath(os.Getenv, scanner.SplitPath(os.Getenv("PATH")), "")
		manIx, _, manErr = scanner.BuildManIndex(context.Background(), roots, scanner.IndexOptions{})
	})
	if manErr != nil {
		t.Fatalf("list the man pages: %v", manErr)
	}
	return CachedLookup(func(ctx context.Context, name string) (search.CommandDoc, error) {
		return pageDoc(manIx, name)
	})
}

func pageDoc(ix *scanner.ManIndex, name string) (search.CommandDoc, error) {
	mp := ix.Lookup(name)
	// The index holds the pages of commands: sections 1, 6 and 8.
	if mp == nil || !strings.ContainsAny(mp.Section[:1], "168") {
		return search.CommandDoc{}, fmt.Errorf("%w %q", search.ErrUnknownCommand, name)
	}
	src, _, err := scanner.ReadPage(mp.Path, 16<<20)
	if err != nil {
		return search.CommandDoc{}, fmt.Errorf("read %s: %w", mp.Path, err)
	}
	page, err := manparse.Parse(src)
	if err != nil {
		return search.CommandDoc{}, fmt.Errorf("parse %s: %w", mp.Path, err)
	}
	var recs []chroma.Record
	for _, c := range page.Chunks(manparse.ChunkOptions{Command: name}) {
		md := index.Metadata{Command: name, Kind: index.Kind(c.Kind), Section: c.Section, Option: c.Option,
			Source: index.SourceMan, ManSection: mp.Section, InstalledPath: "/usr/bin/" + name,
			Description: page.Description}
		recs = append(recs, chroma.Record{ID: c.ID, Document: c.Text, Metadata: md.ToChroma()})
	}
	if len(recs) == 0 {
		return search.CommandDoc{}, fmt.Errorf("%w %q: no chunks", search.ErrUnknownCommand, name)
	}
	return search.DocOf(recs, ""), nil
}

// show renders a result compactly for failure messages.
func show(r Result) string {
	var b strings.Builder
	for _, c := range r.Commands {
		fmt.Fprintf(&b, "%s [%s] via=%v page=%s note=%q\n", c.Name, c.Verdict, c.Via, c.Page, c.Note)
		for _, w := range c.Words {
			fmt.Fprintf(&b, "   %q %d-%d %s opt=%s of=%s note=%q\n", w.Text, w.Start, w.End, w.Verdict, w.Option, w.Of, w.Note)
			for _, f := range w.Flags {
				fmt.Fprintf(&b, "      %q %d-%d %s opt=%s of=%s note=%q\n", f.Text, f.Start, f.End, f.Verdict, f.Option, f.Of, f.Note)
			}
		}
	}
	return b.String()
}

// TestExploreReal prints lines from EXPLAIN_LINES (one per line) against
// the real pages: a tool for tuning, silent otherwise.
func TestExploreReal(t *testing.T) {
	file := os.Getenv("EXPLAIN_LINES")
	if file == "" {
		t.Skip("set EXPLAIN_LINES to a file of command lines")
	}
	l := realLookup(t)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	verbose := os.Getenv("EXPLAIN_VERBOSE") != ""
	lines, bad, unk := 0, 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		lines++
		r, err := Explain(context.Background(), line, l, Options{})
		if err != nil {
			bad++
			if verbose {
				t.Logf("ERR %q: %v", line, err)
			}
			continue
		}
		if r.UnknownCount > 0 {
			unk++
			var parts []string
			for _, c := range r.Commands {
				for _, w := range c.Words {
					if w.Verdict == UnknownOption {
						parts = append(parts, c.Name+" "+w.Text+" ("+w.Note+")")
					}
				}
			}
			t.Logf("UNKNOWN %s  ==> %s", line, strings.Join(parts, "; "))
		}
		if verbose {
			t.Logf("%s\n%s", line, show(r))
		}
	}
	t.Logf("%d lines, %d bad, %d with an unknown option", lines, bad, unk)
}
