package explain

// Tests on this machine's real man pages: each page is parsed and chunked
// the way `cmdai index` does (scanner, manparse) and read back through
// search.DocOf, so Explain sees what an index of this machine would hold.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/testmode"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/search"
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

// explainWith explains lines with l, failing the test on an error.
func explainWith(t *testing.T, l Lookup) func(line string) Result {
	return func(line string) Result {
		t.Helper()
		r, err := Explain(context.Background(), line, l, Options{})
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		return r
	}
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

// TestRealPages checks the lines against this machine's pages.
func TestRealPages(t *testing.T) {
	ex := explainWith(t, realLookup(t))

	line := "tar -xzvf a.tgz -C /tmp | grep -c foo"
	r := ex(line)
	if !r.OK || len(r.Commands) != 2 {
		t.Fatalf("%s: want all known\n%s", line, show(r))
	}
	tar := r.Commands[0]
	want := map[string]string{"-x": "--extract", "-z": "--gzip", "-v": "--verbose", "-f": "--file"}
	for _, f := range tar.Words[0].Flags {
		if want[f.Text] != f.Option || !strings.HasPrefix(f.Help, "tar(1) option ") {
			t.Errorf("tar %s: option %q help %.40q", f.Text, f.Option, f.Help)
		}
	}
	if w := tar.Words[2]; w.Text != "-C" || w.Option != "--directory" || !strings.Contains(w.Help, "DIR") {
		t.Errorf("-C: %+v", w)
	}
	if w := r.Commands[1].Words[0]; w.Option != "--count" || !strings.Contains(w.Help, "count") {
		t.Errorf("grep -c: %+v", w)
	}

	for _, bad := range []string{"tar --zstdx f", "grep --colour-never x"} {
		r := ex(bad)
		if r.UnknownCount != 1 || r.Commands[0].Words[0].Verdict != judge.UnknownOption {
			t.Errorf("%s: want the option flagged\n%s", bad, show(r))
		}
	}

	r = ex(`find . -name '*.go' -mtime -1 -exec rm {} \;`)
	if !r.OK || len(r.Commands) != 2 || r.Commands[1].Name != "rm" || r.Commands[1].Verdict != judge.Known ||
		!slices.Equal(r.Commands[1].Via, []string{"find -exec"}) {
		t.Errorf("find -exec rm:\n%s", show(r))
	}

	r = ex("xargs -0 -I{} cp {} /tmp")
	if !r.OK || len(r.Commands) != 2 || r.Commands[1].Name != "cp" || !slices.Equal(r.Commands[1].Via, []string{"xargs"}) {
		t.Errorf("xargs cp:\n%s", show(r))
	}

	// Lines a person would call right: none flagged.
	for _, ok := range []string{
		"ls -lah --color=auto /tmp",
		"grep -rn --include='*.go' -e foo . | head -5",
		"sed -i.bak -e 's/a/b/' f",
		"sort -t: -k3,3n /etc/passwd | cut -d: -f1",
		"tar cvf - dir | gzip -9 > a.tgz",
		"find / -xdev -type f -size +100M -printf '%s %p\\n' 2>/dev/null | sort -rn",
		"du -sh * | sort -h",
		"curl -sSL -o out https://example.com",
		"ssh -L 8080:localhost:80 -N host",
		"git log --oneline -5",
		"env -i PATH=/bin sh -c 'ls -l'",
		"nice -n 10 tar --zstd -cf a.tar.zst dir",
		"timeout 5 ping -c 3 localhost",
		"kill -9 1234",
		"chmod -R u+x,g-w dir",
		"head -n -5 f",
		"wc -l < f",
		"echo -e 'a\\tb'",
	} {
		r := ex(ok)
		if r.UnknownCount != 0 {
			t.Errorf("%s: a false alarm\n%s", ok, show(r))
		}
	}
}
