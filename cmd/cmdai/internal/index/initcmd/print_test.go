package initcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/scanner"
)

// bufferOpts is o with a terminal of buffers: stdout and stderr.
func bufferOpts(o InitOptions) (*InitOptions, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	o.Factory = &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: out, ErrOut: errOut}}
	return &o, out, errOut
}

var testConn = &connect.Connection{Store: &chroma.Store{URL: "http://127.0.0.1:8765"}, Mode: "embedded"}

func sec(s float64) pages.Duration { return pages.Duration(time.Duration(s * float64(time.Second))) }

func initSummary() builder.Summary {
	return builder.Summary{
		Collection: "cmdai_linux_debian-12", Distro: "debian-12", Model: "all-MiniLM-L6-v2", Variant: "int8", Backend: "ort",
		Commands: 120, Aliases: 7, Subcommands: 3, Chunks: 900, Embedded: 600, Cached: 200, Unchanged: 100, Written: 800, Deleted: 2, Records: 905,
		ScanTime: sec(0.5), ParseTime: sec(2), EmbedTime: sec(30), WriteTime: sec(4), Total: sec(36),
	}
}

// TestPrintInit: the summary a person reads, line by line.
func TestPrintInit(t *testing.T) {
	opts, out, _ := bufferOpts(InitOptions{ProseBudget: 512})
	sum := initSummary()
	sum.DocsWritten, sum.DocsDeleted = 4, 1
	sum.Stats.Trimmed = 40
	if err := printInit(opts, testConn, sum, 2); err != nil {
		t.Fatal(err)
	}
	want := `indexed 120 commands (+7 aliases, +3 subcommand pages) into cmdai_linux_debian-12 on http://127.0.0.1:8765 (embedded)
  chunks:   900 (600 embedded, 200 from cache, 100 unchanged), 800 records written, 2 removed, 905 in the collection
  docs:     4 records of custom docs and hints written, 1 removed
  budget:   40 chunks of long pages' prose left out (--prose-budget 512; 0 keeps all)
  model:    all-MiniLM-L6-v2 int8 (ort backend, 2 embedders)
  time:     scan 500ms, parse 2s, embed 30s busy, write 4s busy; total 36s
next: cmdai index query "find files modified today"
`
	if out.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", out, want)
	}
}

// TestPrintInitFailures: failed pages are named, five at most without
// --verbose, each reason on one line.
func TestPrintInitFailures(t *testing.T) {
	opts, out, _ := bufferOpts(InitOptions{})
	sum := initSummary()
	sum.Subcommands = 0
	for i := range 7 {
		sum.Failures = append(sum.Failures, builder.Failure{Command: fmt.Sprintf("cmd%d", i), Page: "/p", Error: "bad\nroff"})
	}
	sum.Failed = 7
	if err := printInit(opts, testConn, sum, 1); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"indexed 120 commands (+7 aliases) into",
		"  failed:   7 pages, indexed without them:\n            cmd0: bad roff\n",
		"            cmd4: bad roff\n            ... and 2 more (--verbose or `cmdai index status --detailed` lists them)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"cmd5", "docs:", "budget:"} {
		if strings.Contains(got, bad) {
			t.Errorf("summary has %q:\n%s", bad, got)
		}
	}
}

// TestPrintInitVerbose: --verbose adds the scan's totals, the rates, and
// every problem and failed page in full.
func TestPrintInitVerbose(t *testing.T) {
	opts, out, _ := bufferOpts(InitOptions{Verbose: true})
	sum := initSummary()
	sum.Stats = pages.Stats{CommandsSeen: 150, WithManPage: 130, Parsed: 120, Aliases: 7, NoManPage: 20, Failed: 1,
		Problems: []scanner.Problem{{Path: "/usr/share/man/x.1", Err: "unreadable"}}}
	sum.Failures = []builder.Failure{{Command: "bad", Page: "/usr/share/man/man1/bad.1.gz", Error: "no NAME section"}}
	sum.EmbedTime = 0
	if err := printInit(opts, testConn, sum, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  scan:     150 commands on PATH: 130 with a man page, 120 parsed, 7 aliases, 20 without a page, 1 failed\n",
		"  rates:    parse 60/s pages, embed - chunks per busy worker, write 200/s records\n",
		"  problem:  /usr/share/man/x.1: unreadable\n",
		"  failed:   bad (/usr/share/man/man1/bad.1.gz): no NAME section\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verbose summary lacks %q:\n%s", want, out)
		}
	}
}

// TestPrintInitJSON: --json and --batch-mode print the summary as one
// object, with the server and its mode.
func TestPrintInitJSON(t *testing.T) {
	for _, o := range []InitOptions{{JSON: true}, {BatchMode: true}} {
		opts, out, _ := bufferOpts(o)
		if err := printInit(opts, testConn, initSummary(), 2); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !strings.HasPrefix(out.String(), `{"schema_version":1,`) || got["chroma"] != "http://127.0.0.1:8765" || got["chroma_mode"] != "embedded" ||
			got["collection"] != "cmdai_linux_debian-12" || got["commands_count"] != 120.0 || got["total_seconds"] != 36.0 || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%+v: %s", o, out)
		}
	}
}

// TestPrintRefresh: up to date in one line; otherwise what changed, at
// most eight names a list, and the chunks.
func TestPrintRefresh(t *testing.T) {
	opts, out, _ := bufferOpts(InitOptions{})
	if err := printRefresh(opts, "cmdai_linux_debian-12", builder.RefreshSummary{Total: sec(0.25)}); err != nil {
		t.Fatal(err)
	}
	if want := "cmdai_linux_debian-12 is up to date (checked in 250ms)\n"; out.String() != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out.Reset()
	sum := builder.RefreshSummary{
		Plan:  builder.RefreshPlan{Changed: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, Removed: []string{"old"}},
		Build: &builder.Summary{Embedded: 12, Cached: 3, Unchanged: 40}, Deleted: 5, DocsWritten: 2, Total: sec(3),
	}
	if err := printRefresh(opts, "cmdai_linux_debian-12", sum); err != nil {
		t.Fatal(err)
	}
	want := `refreshed cmdai_linux_debian-12 in 3s: 10 changed, 0 new, 1 removed
  changed: a b c d e f g h (+2)
  removed: old
  docs:     2 records of custom docs and hints written, 0 removed
  chunks:   12 embedded, 3 from cache, 40 unchanged; 5 records removed
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	// eight names fit; a ninth is counted
	for n, want := range map[int]string{8: "  new:     a b c d e f g h\n", 9: "  new:     a b c d e f g h (+1)\n"} {
		out.Reset()
		sum := builder.RefreshSummary{Plan: builder.RefreshPlan{Added: strings.Split("abcdefghi", "")[:n]}}
		if err := printRefresh(opts, "c", sum); err != nil || !strings.HasSuffix(out.String(), want) {
			t.Errorf("%d new: %q %v; want it to end %q", n, out, err, want)
		}
	}
	// docs alone are a change too
	out.Reset()
	if err := printRefresh(opts, "c", builder.RefreshSummary{DocsDeleted: 1}); err != nil || !strings.HasPrefix(out.String(), "refreshed c in 0s: 0 changed, 0 new, 0 removed\n  docs:") {
		t.Errorf("docs only: %q %v", out, err)
	}
	for _, o := range []InitOptions{{JSON: true}, {BatchMode: true}} {
		opts, out, _ := bufferOpts(o)
		if err := printRefresh(opts, "c", sum); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Plan  builder.RefreshPlan `json:"plan"`
			Build map[string]any      `json:"build"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Plan.Changed) != 10 || got.Build["embedded"] != 12.0 {
			t.Errorf("%+v: %s (%v)", o, out, err)
		}
	}
}

// TestBatchProgress: batch mode logs a JSON line every 100 pages and at
// the last, on stderr, once per page count; no bar, nothing on stdout.
func TestBatchProgress(t *testing.T) {
	opts, out, errOut := bufferOpts(InitOptions{BatchMode: true})
	var bo builder.Options
	done := setProgress(opts, &bo)
	for _, p := range []int{0, 1, 99, 100, 100, 150, 200, 250} {
		bo.Progress(builder.Progress{Pages: p, TotalPages: 250, Chunks: p * 2, Embedded: p, ToEmbed: p + 1})
	}
	done()
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	want := []string{
		`{"schema_version":1,"chunks_count":0,"embedded":0,"event":"progress","pages":0,"to_embed":1,"total_pages":250}`,
		`{"schema_version":1,"chunks_count":200,"embedded":100,"event":"progress","pages":100,"to_embed":101,"total_pages":250}`,
		`{"schema_version":1,"chunks_count":400,"embedded":200,"event":"progress","pages":200,"to_embed":201,"total_pages":250}`,
		`{"schema_version":1,"chunks_count":500,"embedded":250,"event":"progress","pages":250,"to_embed":251,"total_pages":250}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines:\n%s\nwant:\n%s", errOut, strings.Join(want, "\n"))
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out)
	}
	// not a terminal, not batch mode: no progress at all
	opts, _, _ = bufferOpts(InitOptions{})
	bo = builder.Options{}
	setProgress(opts, &bo)()
	if bo.Progress != nil {
		t.Error("progress reported with no terminal and no batch mode")
	}
}
