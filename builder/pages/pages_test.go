package pages

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
)

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return buf.Bytes()
}

func write(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

// machine builds a PATH dir and a man tree in which:
//   - frob has a page; unfrob's page is a symlink to it; refrob's page is
//     a ".so" stub pointing to it; frobcopy's page is a byte copy of it;
//   - broken's page is not gzip data although it is named .gz;
//   - bare has no page.
func machine(t *testing.T) Options {
	t.Helper()
	root := t.TempDir()
	bin, man := filepath.Join(root, "bin"), filepath.Join(root, "man")
	for _, n := range []string{"frob", "unfrob", "refrob", "frobcopy", "broken", "bare"} {
		write(t, filepath.Join(bin, n), []byte("#!/bin/sh\n"), 0o755)
	}
	src, err := os.ReadFile("../../manparse/testdata/frob.1")
	if err != nil {
		t.Fatal(err)
	}
	page := gz(t, src)
	write(t, filepath.Join(man, "man1", "frob.1.gz"), page, 0o644)
	write(t, filepath.Join(man, "man1", "frobcopy.1.gz"), page, 0o644)
	if err := os.Symlink("frob.1.gz", filepath.Join(man, "man1", "unfrob.1.gz")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(man, "man1", "refrob.1.gz"), gz(t, []byte(".so man1/frob.1\n")), 0o644)
	write(t, filepath.Join(man, "man1", "broken.1.gz"), []byte("this is not gzip"), 0o644)
	return Options{
		PathDirs: []string{bin},
		ManPath:  []string{man},
		Distro:   distro.Info{OS: "linux", ID: "debian-12"},
		Now:      func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
		Parallel: 2,
	}
}

func collect(t *testing.T, opts Options) ([]Result, Stats) {
	t.Helper()
	var rs []Result
	st, err := Run(context.Background(), opts, func(r Result) error {
		rs = append(rs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs, st
}

func TestRunGroupsSharedPages(t *testing.T) {
	rs, st := collect(t, machine(t))
	var got []string
	for _, r := range rs {
		got = append(got, r.Command+":"+r.Status+":"+r.AliasOf)
	}
	want := []string{"bare:no_man_page:", "broken:failed:", "frob:parsed:", "frobcopy:alias:frob", "refrob:alias:frob", "unfrob:alias:frob"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results:\n got %q\nwant %q", got, want)
	}
	frob := rs[2]
	if !reflect.DeepEqual(frob.Aliases, []string{"frobcopy", "refrob", "unfrob"}) {
		t.Errorf("aliases = %q", frob.Aliases)
	}
	if len(frob.Chunks) == 0 || strings.Join(frob.Chunks[0].Metadata.Aliases, ",") != "frobcopy,refrob,unfrob" {
		t.Errorf("chunks carry the aliases: %+v", frob.Chunks)
	}
	if !strings.Contains(rs[1].Error, "read") {
		t.Errorf("broken page error = %q", rs[1].Error)
	}
	if st.CommandsSeen != 6 || st.Parsed != 1 || st.Aliases != 3 || st.Failed != 1 || st.NoManPage != 1 ||
		st.WithManPage != 5 || st.ManPages != 1 || st.Chunks != len(frob.Chunks) || len(st.Failures) != 1 {
		t.Errorf("stats = %+v", st)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	opts := machine(t)
	a, _ := collect(t, opts)
	opts.Parallel = 1
	b, _ := collect(t, opts)
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs (2 workers, then 1) give different results")
	}
}

func TestRunSelectsCommands(t *testing.T) {
	opts := machine(t)
	opts.Commands = []string{"refrob", "bare"}
	rs, _ := collect(t, opts)
	var got []string
	for _, r := range rs {
		got = append(got, r.Command)
	}
	// refrob is documented by frob's page: the whole group is shown
	if want := []string{"bare", "frob", "frobcopy", "refrob", "unfrob"}; !reflect.DeepEqual(got, want) {
		t.Errorf("selected %q, want %q", got, want)
	}
	opts.Commands = []string{"frob", "nosuch"}
	_, err := Run(context.Background(), opts, func(Result) error { return nil })
	if !errors.Is(err, ErrUnknownCommand) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown command: %v", err)
	}
}

func TestRunStopsOnEmitErrorAndCancel(t *testing.T) {
	opts := machine(t)
	stop := errors.New("reader went away")
	n := 0
	_, err := Run(context.Background(), opts, func(Result) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("emit error: err=%v after %d results", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, opts, func(Result) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestRunProgress(t *testing.T) {
	opts := machine(t)
	var calls [][2]int
	opts.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
	collect(t, opts)
	// 3 jobs: bare, broken, and frob with its aliases
	if want := [][2]int{{1, 3}, {2, 3}, {3, 3}}; !reflect.DeepEqual(calls, want) {
		t.Errorf("progress calls = %v, want %v", calls, want)
	}
}

func TestFailureReason(t *testing.T) {
	for msg, want := range map[string]string{
		"help: run /usr/bin/x --help: no answer within 2s, killed":     "help: timeout",
		"help: run /usr/bin/x --help: printed nothing (exit status 0)": "help: no output",
		"read: open /x.1.gz: permission denied":                        "permission denied",
		"parse: " + manparse.ErrNotRoff.Error():                        "not a man page",
		"read: gzip: invalid header":                                   "read",
	} {
		if got := failureReason(msg); got != want {
			t.Errorf("failureReason(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestRunPageWithTwoDescriptions: manparse's twodesc.1 has DESCRIPTION
// twice, the second shorter than what the summary takes from the first;
// it used to panic the chunker, and the panic took the whole run down.
func TestRunPageWithTwoDescriptions(t *testing.T) {
	opts := machine(t)
	write(t, filepath.Join(opts.PathDirs[0], "twodesc"), []byte("#!/bin/sh\n"), 0o755)
	src, err := os.ReadFile("../../manparse/testdata/twodesc.1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(opts.ManPath[0], "man1", "twodesc.1"), src, 0o644)
	rs, st := collect(t, opts)
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Command] = r
	}
	if r := got["twodesc"]; r.Status != StatusParsed || len(r.Chunks) == 0 {
		t.Errorf("twodesc: status %q, %d chunks, error %q", r.Status, len(r.Chunks), r.Error)
	}
	if got["frob"].Status != StatusParsed || st.Parsed != 2 {
		t.Errorf("the other pages: frob %q, %d parsed", got["frob"].Status, st.Parsed)
	}
}

func TestRunRecoversFromAPanickingPage(t *testing.T) {
	orig := chunkPage
	t.Cleanup(func() { chunkPage = orig })
	chunkPage = func(p *manparse.Page, o manparse.ChunkOptions) []manparse.Chunk {
		if o.Command == "frob" {
			var blocks []int
			_ = blocks[len(p.Sections)] // the kind of bug an unseen page trips
		}
		return orig(p, o)
	}
	opts := machine(t)
	write(t, filepath.Join(opts.PathDirs[0], "wobble"), []byte("#!/bin/sh\n"), 0o755)
	src, err := os.ReadFile("../../manparse/testdata/wobble.1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(opts.ManPath[0], "man1", "wobble.1"), src, 0o644)
	for _, parallel := range []int{1, 2} {
		opts.Parallel = parallel
		rs, st := collect(t, opts)
		var got []string
		byName := map[string]Result{}
		for _, r := range rs {
			got = append(got, r.Command+":"+r.Status)
			byName[r.Command] = r
		}
		// frob fails with its aliases; the run completes with the rest
		want := []string{"bare:no_man_page", "broken:failed", "frob:failed", "frobcopy:failed", "refrob:failed", "unfrob:failed", "wobble:parsed"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parallel %d: results\n got %q\nwant %q", parallel, got, want)
		}
		frob := byName["frob"]
		t.Log(frob.Error)
		for _, w := range []string{"panic: runtime error: index out of range", "pages.TestRunRecoversFromAPanickingPage", "pages_test.go:"} {
			if !strings.Contains(frob.Error, w) {
				t.Errorf("frob's error %q lacks %q", frob.Error, w)
			}
		}
		if frob.ManPage == "" || frob.Fingerprint == "" || len(frob.Chunks) != 0 {
			t.Errorf("the failed result keeps its page and fingerprint, no chunks: %+v", frob)
		}
		if byName["unfrob"].Error != frob.Error {
			t.Errorf("an alias shares its page's failure: %q", byName["unfrob"].Error)
		}
		// the aliases count as failed too, as with any failure of their page
		if st.Failed != 5 || st.Failures["panic"] != 4 || st.Parsed != 1 || len(byName["wobble"].Chunks) == 0 {
			t.Errorf("parallel %d: stats %+v", parallel, st)
		}
	}
}

// TestScanDirs: the directories come from the environment given, not the
// process's; an empty $PATH is no directory (not nil, which Options take
// for the process's $PATH); $MANPATH is used as man-db uses it.
func TestScanDirs(t *testing.T) {
	env := map[string]string{"PATH": "/nonexistent/a/bin:relative:/nonexistent/a/bin:/nonexistent/b", "MANPATH": "/nonexistent/man"}
	dirs, man := ScanDirs(func(k string) string { return env[k] })
	if strings.Join(dirs, ":") != "/nonexistent/a/bin:/nonexistent/b" || strings.Join(man, ":") != "/nonexistent/man" {
		t.Errorf("ScanDirs = %q, %q", dirs, man)
	}
	dirs, _ = ScanDirs(func(string) string { return "" })
	if dirs == nil || len(dirs) != 0 {
		t.Errorf("empty PATH: %#v; want an empty, non-nil list", dirs)
	}
}

// BenchmarkScanInstalled is what one `index status` (one-shot or through
// serve, per request) spends finding this machine's installed commands:
// the $PATH walk, the man-hierarchy listing and the fingerprints.
func BenchmarkScanInstalled(b *testing.B) {
	var n int
	for b.Loop() {
		got, err := ScanInstalled(context.Background(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(got)
	}
	b.ReportMetric(float64(n), "commands")
}

// pageBase strips every compression suffix in the scanner's order, as it
// did when it held its own copy of the list.
func TestPageBase(t *testing.T) {
	for path, want := range map[string]string{
		"/usr/share/man/man1/gzip.1.gz": "gzip", "a.1.bz2": "a", "a.1.xz": "a", "a.1.zst": "a", "a.1.Z": "a",
		"python3.11.1.gz": "python3.11", "plain.1": "plain", "noext": "noext",
		"a.b.xz.gz": "a", "a.b.gz.xz": "a.b", // stacked: each suffix once, in list order
	} {
		if got := pageBase(path); got != want {
			t.Errorf("pageBase(%q) = %q, want %q", path, got, want)
		}
	}
}

// hugePage is the page: 50,000 option entries of long text (7.2
// MB of source, past the parser's 4 MiB of text) with EXAMPLES after
// them; short, it is the same page with n options.
func hugePage(n int, long bool) []byte {
	var b strings.Builder
	b.WriteString(".TH HUGE 1\n.SH NAME\nhuge \\- a page of very many options\n.SH SYNOPSIS\n.B huge\n[\\fIOPTION\\fR]...\n.SH OPTIONS\n")
	text := "Set the thing."
	if long {
		text = "Set the thing to the value given, as the documentation of this option explains at length."
	}
	for i := range n {
		fmt.Fprintf(&b, ".TP\n\\fB\\-\\-opt%d\\fR\n%s\n", i, text)
	}
	b.WriteString(".SH EXAMPLES\nRun it:\n.PP\n.EX\nhuge \\-\\-opt1\n.EE\n")
	return []byte(b.String())
}

// TestRunReportsACutPage (issue 45, finding 17): a page past the
// parser's text limit is indexed in part and says so (Result.Cut), and
// no page gives more than MaxChunksPerPage records, keeping its summary
// and examples first. A page within both is whole, with no Cut.
func TestRunReportsACutPage(t *testing.T) {
	opts := machine(t)
	src := hugePage(50000, true)
	if len(src) < 4<<20 {
		t.Fatalf("the huge page is only %d bytes", len(src))
	}
	write(t, filepath.Join(opts.PathDirs[0], "huge"), []byte("#!/bin/sh\n"), 0o755)
	write(t, filepath.Join(opts.ManPath[0], "man1", "huge.1"), src, 0o644)
	write(t, filepath.Join(opts.PathDirs[0], "many"), []byte("#!/bin/sh\n"), 0o755)
	write(t, filepath.Join(opts.ManPath[0], "man1", "many.1"), hugePage(MaxChunksPerPage+500, false), 0o644)
	rs, _ := collect(t, opts)
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Command] = r
	}
	huge := got["huge"]
	if huge.Status != StatusParsed || !strings.Contains(huge.Cut, "4 MiB") || len(huge.Chunks) > MaxChunksPerPage || !strings.Contains(huge.Cut, "chunks") {
		t.Errorf("huge: status %q, cut %q, %d chunks; want parsed, cut at 4 MiB and capped at %d", huge.Status, huge.Cut, len(huge.Chunks), MaxChunksPerPage)
	}
	many := got["many"]
	kinds := map[index.Kind]int{}
	for _, c := range many.Chunks {
		kinds[c.Metadata.Kind]++
	}
	if len(many.Chunks) != MaxChunksPerPage || kinds[index.KindSummary] != 1 || kinds[index.KindExample] != 1 || !strings.Contains(many.Cut, fmt.Sprintf("of which %d are indexed", MaxChunksPerPage)) || strings.Contains(many.Cut, "MiB") {
		t.Errorf("many: %d chunks %v, cut %q; want %d with the summary and the example, cut for its chunks only", len(many.Chunks), kinds, many.Cut, MaxChunksPerPage)
	}
	if f := got["frob"]; f.Cut != "" {
		t.Errorf("frob is whole, but cut %q", f.Cut)
	}
}
