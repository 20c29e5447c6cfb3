package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/scancmd"
	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

func testIO() (*cmdutil.IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut}, out, errOut
}

// runCLI runs the whole command line as main does.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	io, out, errOut := testIO()
	code = run(context.Background(), append([]string{"cmdai"}, args...), io)
	return code, out.String(), errOut.String()
}

func TestScanFlagsIntoOptions(t *testing.T) {
	t.Setenv("CMDAI_LANG", "fr")
	io, _, _ := testIO()
	var got *scancmd.ScanOptions
	f := cmdutil.NewFactory(io, os.Getenv, "")
	app := newApp(f)
	// swap the real run for one that records the parsed options
	index := findCommand(app.Commands, "index")
	scan := -1
	for i, c := range index.Subcommands {
		if c.Name == "scan" {
			scan = i
		}
	}
	if scan < 0 {
		t.Fatal("cmdai index has no scan subcommand")
	}
	index.Subcommands[scan] = scancmd.NewCmdScan(f, func(o *scancmd.ScanOptions) error {
		got = o
		return nil
	})
	err := app.Run([]string{"cmdai", "--batch-mode", "index", "scan", "--json", "--stats", "--command", "grep", "--command", "tar",
		"--distro", "ubuntu-24.04", "--help-fallback", "-j", "3"})
	if err != nil {
		t.Fatal(err)
	}
	want := scancmd.ScanOptions{Factory: f, JSON: true, Stats: true, Commands: []string{"grep", "tar"}, Distro: "ubuntu-24.04",
		Lang: "fr", HelpFallback: true, Parallel: 3, BatchMode: true}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("options:\n got %+v\nwant %+v", *got, want)
	}
}

func TestScanUsageErrors(t *testing.T) {
	cases := [][]string{
		{"index", "scan", "--no-such-flag"},
		{"index", "scan", "grep"},
		{"index", "scan", "--distro", "Debian 12"},
		{"index", "scan", "--parallel", "-1"},
	}
	for _, args := range cases {
		code, _, stderr := runCLI(t, args...)
		if code != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, cmdutil.ExitUsage, stderr)
		}
		if !strings.Contains(stderr, "cmdai") {
			t.Errorf("%q: stderr does not explain: %q", args, stderr)
		}
	}
}

func TestHelpTexts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"index", "EXAMPLES", "cmdai help exit-codes", "CMDAI_BATCH_MODE"}},
		{[]string{"help", "exit-codes"}, []string{"EXIT CODES", "130  interrupted"}},
		{[]string{"index", "--help"}, []string{"scan", "EXAMPLES"}},
		{[]string{"index", "scan", "--help"}, []string{"--json", "--stats", "--command NAME", "CMDAI_DISTRO", "CMDAI_LANG", "--help-fallback", "EXAMPLES", `"type":"command"`}},
	} {
		code, out, _ := runCLI(t, c.args...)
		if code != 0 {
			t.Errorf("%q: exit %d", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q help lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// fakeMachine builds a $PATH directory and a man hierarchy:
// frob (documented by testdata's frob.1), unfrob (its page is a symlink
// to frob's), nodoc (no page), helpy (no page, prints --help, and leaves
// helpyRan(bin) when run) and reboot (on the deny list; running it would
// leave a marker file).
func fakeMachine(t *testing.T) (bin, man, marker string) {
	t.Helper()
	root := t.TempDir()
	bin, man = filepath.Join(root, "bin"), filepath.Join(root, "man")
	marker = filepath.Join(root, "reboot-ran")
	for _, d := range []string{bin, filepath.Join(man, "man1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scripts := map[string]string{
		"frob":   "#!/bin/sh\nexit 0\n",
		"unfrob": "#!/bin/sh\nexit 0\n",
		"nodoc":  "#!/bin/sh\nexit 0\n",
		"reboot": "#!/bin/sh\ntouch " + marker + "\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// a native executable, as --help-fallback runs no local #! script
	helpfixture.Write(t, bin, "helpy", helpyScript(bin, ""))
	src, err := os.ReadFile(frobFixture)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(src)
	zw.Close()
	page := filepath.Join(man, "man1", "frob.1.gz")
	if err := os.WriteFile(page, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("frob.1.gz", filepath.Join(man, "man1", "unfrob.1.gz")); err != nil {
		t.Fatal(err)
	}
	return bin, man, marker
}

// helpyRan is the file fakeMachine's helpy leaves when it is run.
func helpyRan(bin string) string { return filepath.Join(filepath.Dir(bin), "helpy-ran") }

// helpyScript is what helpy does: leave helpyRan and print its --help,
// with more option lines after its own.
func helpyScript(bin, more string) string {
	return "touch " + helpyRan(bin) + "\necho 'Usage: helpy [-q] FILE'\necho 'Make FILE helpful.'\necho\necho '  -q, --quiet   say nothing'\n" + more + "exit 2\n"
}

func scanOpts(t *testing.T, io *cmdutil.IOStreams) *scancmd.ScanOptions {
	bin, man, _ := fakeMachine(t)
	return &scancmd.ScanOptions{Factory: cmdutil.NewFactory(io, nil, ""), PathDirs: []string{bin}, ManPath: []string{man}, Distro: "debian-12", BatchMode: true}
}

func decodeLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		objs = append(objs, m)
	}
	return objs
}

func TestRunScanJSON(t *testing.T) {
	io, out, _ := testIO()
	opts := scanOpts(t, io)
	opts.JSON, opts.Stats = true, true
	if err := scancmd.RunScan(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	objs := decodeLines(t, out.String())
	byName := map[string]map[string]any{}
	var order []string
	for _, o := range objs[:len(objs)-1] {
		if o["type"] != "command" {
			t.Fatalf("type = %v", o["type"])
		}
		name := o["command"].(string)
		byName[name] = o
		order = append(order, name)
	}
	// name order, with the alias right after the command it shares a page with
	if want := []string{"frob", "unfrob", "helpy", "nodoc", "reboot"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order = %q, want %q", order, want)
	}
	frob := byName["frob"]
	if frob["status"] != "parsed" || frob["man_section"] != "1" || frob["description"] != "twiddle the bits of files in place" ||
		frob["options"].(float64) != 4 || !strings.HasSuffix(frob["man_page"].(string), "man1/frob.1.gz") {
		t.Errorf("frob = %v", frob)
	}
	var rec map[string]any
	for _, c := range frob["chunks"].([]any) {
		c := c.(map[string]any)
		if c["id"] == "frob.1#OPTIONS#--recursive" {
			rec = c
		}
	}
	if rec == nil {
		t.Fatalf("no chunk frob.1#OPTIONS#--recursive in %v", frob["chunks"])
	}
	md := rec["metadata"].(map[string]any)
	for k, v := range map[string]any{"command": "frob", "section": "OPTIONS", "kind": "option", "option": "--recursive",
		"man_section": "1", "distro": "debian-12", "os": "linux", "source": "man", "page_source": "frob 2.4", "aliases": "unfrob"} {
		if md[k] != v {
			t.Errorf("metadata[%s] = %v, want %v", k, md[k], v)
		}
	}
	// a made-up command in a temporary directory: no package owns it, so
	// no version (the page's source field is not one)
	for _, k := range []string{"version", "package", "package_version"} {
		if v, ok := md[k]; ok {
			t.Errorf("metadata[%s] = %v for a command no package owns, want none", k, v)
		}
	}
	if !strings.HasSuffix(md["installed_path"].(string), "/bin/frob") || len(md["content_hash"].(string)) != 64 || md["indexed_at"] == "" {
		t.Errorf("metadata = %v", md)
	}
	if u := byName["unfrob"]; u["status"] != "alias" || u["alias_of"] != "frob" || u["chunks"] != nil {
		t.Errorf("unfrob = %v", u)
	}
	// without --help-fallback nothing is run
	if h := byName["helpy"]; h["status"] != "no_man_page" {
		t.Errorf("helpy = %v", h)
	}
	st := objs[len(objs)-1]
	if st["type"] != "stats" || st["commands_seen"].(float64) != 5 || st["parsed"].(float64) != 1 ||
		st["aliases_count"].(float64) != 1 || st["no_man_page"].(float64) != 3 || st["with_man_page"].(float64) != 2 {
		t.Errorf("stats = %v", st)
	}
}

func TestRunScanHelpFallback(t *testing.T) {
	io, out, _ := testIO()
	bin, man, marker := fakeMachine(t)
	opts := &scancmd.ScanOptions{Factory: cmdutil.NewFactory(io, nil, ""), PathDirs: []string{bin}, ManPath: []string{man}, Distro: "debian-12",
		JSON: true, HelpFallback: true, Commands: []string{"helpy", "reboot"}}
	if err := scancmd.RunScan(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	objs := decodeLines(t, out.String())
	if len(objs) != 2 {
		t.Fatalf("got %d objects", len(objs))
	}
	h, r := objs[0], objs[1]
	if h["status"] != "parsed" || h["source"] != "help" || h["options"].(float64) != 1 || h["description"] != "Make FILE helpful" {
		t.Errorf("helpy = %v", h)
	}
	if r["status"] != "denied" {
		t.Errorf("reboot = %v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the denied command was run")
	}
}

func TestRunScanText(t *testing.T) {
	io, out, _ := testIO()
	opts := scanOpts(t, io)
	opts.Stats = true
	if err := scancmd.RunScan(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, w := range []string{"COMMAND", "MAN PAGE", "frob", "alias of frob", "no_man_page", "commands on PATH:  5", "cmdai_linux_debian-12", "pages/s"} {
		if !strings.Contains(s, w) {
			t.Errorf("output lacks %q:\n%s", w, s)
		}
	}

	io, out, _ = testIO()
	opts = scanOpts(t, io)
	opts.Commands = []string{"frob"}
	if err := scancmd.RunScan(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	s = out.String()
	for _, w := range []string{"frob.1#NAME", "frob.1#OPTIONS#--recursive", "frob.1#EXAMPLES#1", "sections:  NAME, SYNOPSIS", "aliases:   unfrob"} {
		if !strings.Contains(s, w) {
			t.Errorf("detailed output lacks %q:\n%s", w, s)
		}
	}
}

func TestRunScanUnknownCommand(t *testing.T) {
	io, _, _ := testIO()
	opts := scanOpts(t, io)
	opts.Commands = []string{"nosuchcommand"}
	err := scancmd.RunScan(context.Background(), opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "nosuchcommand") {
		t.Errorf("err = %v (exit %d)", err, cmdutil.ExitCode(err))
	}
}

// repoRoot is the repository, by an absolute path found once when the
// tests start: every file a test reads or hands cmdai is named from it,
// never by a path relative to the working directory. Loading a model
// with ONNX Runtime (hugot) changes the process's working directory
// into the model's for the while, and tests of this package run cmdai in
// process, in parallel: a relative path resolved meanwhile names a
// file under the model's directory (the flaky "open
// ../../manparse/testdata/frob.1: no such file or directory").
var repoRoot = func() string {
	p, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return p
}()

// repoFile is the repository's file rel (slash-separated), absolute.
func repoFile(rel string) string { return filepath.Join(repoRoot, filepath.FromSlash(rel)) }

// frobFixture is manparse's fixture page, absolute.
var frobFixture = repoFile("manparse/testdata/frob.1")
