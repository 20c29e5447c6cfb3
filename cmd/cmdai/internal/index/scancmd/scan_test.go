package scancmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/scanner"
)

// runIndex runs `index ARGS` with cmd under the group, as cmdai does.
func runIndex(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
}

func TestScanFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *ScanOptions
	scan := func(env cmdtest.Env, args ...string) error {
		got = nil
		return runIndex(t, NewCmdScan(f, func(o *ScanOptions) error { got = o; return nil }), env, args...)
	}
	if err := scan(nil); err != nil || got == nil {
		t.Fatal(err)
	}
	if want := (ScanOptions{Factory: f}); !reflect.DeepEqual(*got, want) {
		t.Errorf("defaults %+v, want %+v", *got, want)
	}
	env := cmdtest.Env{"CMDAI_JSON": "1", "CMDAI_DISTRO": "arch", "CMDAI_LANG": "de", "CMDAI_HELP_FALLBACK": "true", "CMDAI_PARALLEL": "2"}
	if err := scan(env, "--stats", "--command", "tar", "--command", "grep", "-j", "4"); err != nil {
		t.Fatal(err)
	}
	want := ScanOptions{Factory: f, JSON: true, Stats: true, Commands: []string{"tar", "grep"}, Distro: "arch", Lang: "de", HelpFallback: true, Parallel: 4}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("options:\n got %+v\nwant %+v", *got, want)
	}
	got = nil
	if err := cmdtest.Run(t, cmdtest.Index(NewCmdScan(f, func(o *ScanOptions) error { got = o; return nil })), nil, "--batch-mode", "index", "scan"); err != nil || got == nil || !got.BatchMode {
		t.Errorf("global --batch-mode: %+v %v", got, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"grep"}, `unexpected argument "grep": cmdai index scan takes no arguments; name commands with --command NAME`},
		{[]string{"--distro", "Debian 12"}, `--distro: invalid distribution id "Debian 12"`},
		{[]string{"--parallel", "-1"}, "--parallel must be 0 (one per CPU) or more, not -1"},
		{[]string{"--command", ""}, "--command needs a value"},
		{[]string{"--stat"}, "unknown flag --stat"},
	} {
		cmdtest.Usage(t, scan(nil, tc.args...), tc.want)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
	}
}

// machine is a $PATH directory and a man path: frob with its page, unfrob
// an alias (its page a link to frob's), nodoc without a page.
func machine(t *testing.T) (bin, man string) {
	t.Helper()
	root := t.TempDir()
	bin, man = filepath.Join(root, "bin"), filepath.Join(root, "man")
	for _, d := range []string{bin, filepath.Join(man, "man1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"frob", "unfrob", "nodoc"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(frobPage)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(man, "man1", "frob.1"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("frob.1", filepath.Join(man, "man1", "unfrob.1")); err != nil {
		t.Fatal(err)
	}
	return bin, man
}

// TestRunScanText: the table, one row a command, and with --stats the
// totals under the detected distribution.
func TestRunScanText(t *testing.T) {
	bin, man := machine(t)
	f, out, errOut := cmdtest.Factory(t, nil)
	if err := RunScan(t.Context(), &ScanOptions{Factory: f, PathDirs: []string{bin}, ManPath: []string{man}, Stats: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "COMMAND  STATUS") || !strings.HasSuffix(lines[0], "PATH") && !strings.HasSuffix(lines[0], "MAN PAGE") {
		t.Errorf("header %q", lines[0])
	}
	for _, want := range []string{
		"\nfrob     parsed         1        4        7       " + filepath.Join(bin, "frob") + "    " + filepath.Join(man, "man1", "frob.1") + "\n",
		"\nunfrob   alias of frob  1        0        0       ",
		"\nnodoc    no_man_page    -        0        0       " + filepath.Join(bin, "nodoc") + "   -\n",
		"\ndistribution:      debian-12 (collection cmdai_linux_debian-12)\n",
		"commands on PATH:  3\n", "  with a man page: 2\n", "  aliases:         1 (share another command's page)\n", "  no man page:     1\n", "  failed:          0\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("scan lacks %q:\n%s", want, out)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr (no terminal: no bar): %q", errOut)
	}
}

// TestRunScanDetailed: --command prints each named command in full.
func TestRunScanDetailed(t *testing.T) {
	bin, man := machine(t)
	f, out, _ := cmdtest.Factory(t, nil)
	if err := RunScan(t.Context(), &ScanOptions{Factory: f, PathDirs: []string{bin}, ManPath: []string{man}, Commands: []string{"frob", "unfrob"}, Distro: "fedora-40"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"frob  " + filepath.Join(bin, "frob") + "\n  status:    parsed\n",
		"  man page:  " + filepath.Join(man, "man1", "frob.1") + " (section 1)\n",
		"  summary:   twiddle the bits of files in place\n  aliases:   unfrob\n",
		"  sections:  NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES, SEE ALSO\n",
		"  options:   4\n  examples:  1\n  chunks:    7\n",
		"    frob.1#OPTIONS#--dry-run    option   20 tokens\n",
		"unfrob  " + filepath.Join(bin, "unfrob") + "\n  status:    alias\n  alias of:  frob (same man page)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("detailed scan lacks %q:\n%s", want, out)
		}
	}
	// a name that is not on $PATH is a usage error
	err := RunScan(t.Context(), &ScanOptions{Factory: f, PathDirs: []string{bin}, ManPath: []string{man}, Commands: []string{"nosuch"}})
	cmdtest.Usage(t, err, "nosuch")
}

// TestRunScanJSON: one object per line, each with the schema version and
// its type; the stats last.
func TestRunScanJSON(t *testing.T) {
	bin, man := machine(t)
	f, out, _ := cmdtest.Factory(t, nil)
	if err := RunScan(t.Context(), &ScanOptions{Factory: f, PathDirs: []string{bin}, ManPath: []string{man}, JSON: true, Stats: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	status := map[string]string{}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || !strings.HasPrefix(line, `{"schema_version":1,"type":`) {
			t.Fatalf("line %d %q: %v", i, line, err)
		}
		if i == len(lines)-1 {
			if m["type"] != "stats" || m["commands_seen"] != 3.0 {
				t.Errorf("last line %q; want the stats", line)
			}
			continue
		}
		if m["type"] != "command" {
			t.Errorf("line %q", line)
		}
		status[m["command"].(string)] = m["status"].(string)
	}
	if want := map[string]string{"frob": "parsed", "unfrob": "alias", "nodoc": "no_man_page"}; !reflect.DeepEqual(status, want) {
		t.Errorf("statuses %v, want %v", status, want)
	}
}

// TestScanDetectsDistro: without --distro the scan labels records with
// the detected distribution; a failed detection says to pass --distro.
func TestScanDetectsDistro(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	f.DetectDistro = func(context.Context) (distro.Info, error) { return distro.Info{}, os.ErrNotExist }
	err := RunScan(t.Context(), &ScanOptions{Factory: f, PathDirs: []string{t.TempDir()}, ManPath: []string{t.TempDir()}})
	cmdtest.Code(t, err, cmdutil.ExitFailure, "detect distribution: file does not exist (pass --distro ID, e.g. --distro debian-12)")
}

// TestScanPrinterStats: the stats' optional lines.
func TestScanPrinterStats(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	p := &textScanPrinter{out: f.IO.Out, info: distro.Info{OS: "linux", ID: "debian-12"}}
	st := pages.Stats{CommandsSeen: 10, Denied: 2, Subcommands: 3, NotSubcommands: 1, Failures: map[string]int{"timeout": 1, "bad roff": 2},
		PackageDB: "dpkg", PackageOwned: 7, PackageError: "locked"}
	for i := range 5 {
		st.Problems = append(st.Problems, scanner.Problem{Path: "/p" + string(rune('0'+i)), Err: "unreadable"})
	}
	if err := p.Stats(st); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  denied:          2 (never run by --help-fallback)\n",
		"subcommand pages:  3 (1 more named like one, whose SYNOPSIS shows none)\n",
		"    bad roff:       2\n    timeout:        1\n",
		"packages:          7 commands owned (dpkg database, 0s)\n  package database unreadable: locked\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats lack %q:\n%s", want, out)
		}
	}
	// three problems shown, the last lines
	if want := "problems:          5 (use --json --stats for the list)\n  /p0: unreadable\n  /p1: unreadable\n  /p2: unreadable\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("stats do not end with %q:\n%s", want, out)
	}
}

// frobPage is manparse's fixture page by an absolute path found when the
// tests start (loading a model changes the working directory for the
// while: see cmd/cmdai's repoRoot).
var frobPage = func() string {
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "..", "manparse", "testdata", "frob.1"))
	if err != nil {
		panic(err)
	}
	return p
}()
