package completioncmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/ship/release"
)

// testApp is cmdtest's small command tree with `completion`.
func testApp(f *cmdutil.Factory, ran *bool) *cli.App {
	return cmdtest.App(ran, NewCmdCompletion(f, nil))
}

// complete is what Complete offers after words (on app's Writer, as in
// cmdai, where a command's BashComplete prints).
func complete(app *cli.App, words ...string) []string {
	var out bytes.Buffer
	app.Writer = &out
	Complete(app, append(words, CompletionMarker), &out)
	return strings.Fields(out.String())
}

func TestIsCompletionRequest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"index", "--generate-bash-completion"}, true},
		{[]string{"--generate-bash-completion", "index"}, true},
		{[]string{"index", "query", "--", "--generate-bash-completion"}, true},
		{[]string{"index", "query", "--json"}, false},
		{nil, false},
	} {
		if got := IsCompletionRequest(tc.args); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestComplete: the candidates at the cursor, found by walking the tree;
// no command runs, whatever the words.
func TestComplete(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	ran := false
	app := testApp(f, &ran)
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{nil, []string{"index", "completion", "help", "h"}}, // not the hidden ones
		{[]string{"index"}, []string{"query", "q", "init", "help", "h"}},
		{[]string{"--batch-mode", "index"}, []string{"query", "q", "init", "help", "h"}},
		{[]string{"index", "query", "--"}, []string{"--help", "--json", "--top-k", "--distro"}},
		{[]string{"index", "query", "--t"}, []string{"--top-k"}},
		{[]string{"index", "query", "-"}, []string{"--help", "-h", "--json", "--top-k", "-k", "--distro"}},
		{[]string{"index", "query", "--json", "--"}, []string{"--help", "--top-k", "--distro"}},
		{[]string{"--"}, []string{"--help", "--version", "--batch-mode"}},
		{[]string{"index", "query", "--distro"}, distroIDs()}, // the cursor is on the value: the ids
		{[]string{"index", "query", "--distro=deb"}, []string{"--distro=debian-12", "--distro=debian-13"}},
		{[]string{"index", "query", "--top-k"}, nil},             // a value with none to offer
		{[]string{"index", "query", "--distro", "x"}, nil},       // query takes words: none to offer
		{[]string{"index", "query", "words", "--", "more"}, nil}, // after "--": the shell's files
		{[]string{"completion"}, Shells},
		{[]string{"nosuch"}, nil},
	} {
		if got := complete(app, tc.words...); !slices.Equal(got, tc.want) {
			t.Errorf("%q<TAB>: %q, want %q", tc.words, got, tc.want)
		}
	}
	// the marker anywhere: the words before the first one count
	var out bytes.Buffer
	Complete(app, []string{"index", CompletionMarker, "query", CompletionMarker}, &out)
	if got := strings.Fields(out.String()); !slices.Equal(got, []string{"query", "q", "init", "help", "h"}) {
		t.Errorf("two markers: %q", got)
	}
	if ran {
		t.Error("a completion request ran a command")
	}
}

// TestCompletionCommand: the script of each shell; the shell is one
// argument, one of three.
func TestCompletionCommand(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	ran := false
	app := testApp(f, &ran)
	for shell, want := range map[string]string{"bash": bashScript, "zsh": zshScript} {
		out.Reset()
		if err := app.Run([]string{"cmdai", "completion", shell}); err != nil {
			t.Fatal(err)
		}
		if out.String() != want || !strings.Contains(want, CompletionMarker) {
			t.Errorf("%s: printed %d bytes, want the embedded script (%d bytes) that asks with %s", shell, out.Len(), len(want), CompletionMarker)
		}
	}
	out.Reset()
	if err := app.Run([]string{"cmdai", "completion", "fish"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != fishScript || !strings.Contains(fishScript, CompletionMarker) || !strings.Contains(fishScript, "complete -c cmdai -f -a '(__cmdai_complete)'") {
		t.Errorf("fish: printed %d bytes, want the embedded script that asks with %s:\n%s", out.Len(), CompletionMarker, out)
	}
	// the library's script had 8 lines twice (one per command of the
	// same name, index export and model export); no complete line twice
	seen := map[string]bool{}
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "complete ") && seen[l] {
			t.Errorf("fish script has twice: %s", l)
		}
		seen[l] = true
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"completion"}, "name the shell: `cmdai completion bash`, `zsh` or `fish`"},
		{[]string{"completion", "tcsh"}, `no completion for shell "tcsh": use bash, zsh, fish`},
		{[]string{"completion", "bash", "zsh"}, `unexpected argument "zsh"`},
	} {
		cmdtest.Usage(t, cmdtest.Run(t, NewCmdCompletion(f, nil), nil, tc.args...), tc.want)
	}
}

// TestCompletionRunF: runF gets the shell and the tree it completes.
func TestCompletionRunF(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var got *CompletionOptions
	cmd := NewCmdCompletion(f, func(o *CompletionOptions) error { got = o; return nil })
	if err := cmdtest.Run(t, cmd, nil, "completion", "zsh"); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Shell != "zsh" || got.Factory != f || got.App == nil || got.App.Name != "cmdai" || out.Len() != 0 {
		t.Errorf("options %+v, printed %q", got, out)
	}
	var shells bytes.Buffer
	cmd.BashComplete(cli.NewContext(&cli.App{Writer: &shells}, nil, nil))
	if got := strings.Fields(shells.String()); !slices.Equal(got, Shells) {
		t.Errorf("completion <TAB>: %q", got)
	}
}

// TestValues: what the values offered come from, without a network,
// an index or a command run.
func TestValues(t *testing.T) {
	for name, want := range map[string][]string{
		"mode":          {"learned", "semantic", "keyword", "hybrid", "fused"},
		"model-variant": {"int8", "fp32"},
		"embed-backend": {"ort", "go"},
		"color":         {"never", "auto", "always"},
	} {
		if got := flagValues[name](); !slices.Equal(got, want) {
			t.Errorf("--%s: %q, want %q", name, got, want)
		}
	}
	for _, m := range flagValues["mode"]() {
		if _, err := search.ParseMode(m); err != nil {
			t.Errorf("mode %q offered: %v", m, err)
		}
	}
	// every mode ParseMode names when it refuses one is offered
	_, err := search.ParseMode("nosuch")
	_, named, _ := strings.Cut(fmt.Sprint(err), "use ")
	for _, m := range strings.FieldsFunc(strings.ReplaceAll(named, " or ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
		if !slices.Contains(flagValues["mode"](), m) {
			t.Errorf("mode %s (ParseMode: %v) is not offered", m, err)
		}
	}
	ids := distroIDs()
	for _, id := range append(release.PublishedIDs, "ubuntu-24.04") {
		if !slices.Contains(ids, id) {
			t.Errorf("distro ids %q: no %s", ids, id)
		}
	}
	for _, id := range ids {
		if _, err := distro.Parse(id); err != nil {
			t.Errorf("distro id %q offered: %v", id, err)
		}
	}
	// the executables of $PATH's absolute directories, not the rest
	dir, rel := t.TempDir(), t.TempDir()
	for name, mode := range map[string]os.FileMode{"mytool": 0o755, "notes.txt": 0o644, ".hidden": 0o755, "esc\x1b[2Jx": 0o755, "tab\tx": 0o755} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\ntouch ran\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "mytool"), filepath.Join(dir, "mylink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(rel)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"."+string(os.PathListSeparator)+dir)
	if got := commandsOnPath(); !slices.Equal(got, []string{"mylink", "mytool"}) {
		t.Errorf("commands on PATH: %q, want mylink, mytool", got)
	}
	if _, err := os.Stat(filepath.Join(rel, "ran")); err == nil {
		t.Error("a command on PATH ran")
	}
}

// TestCompleteArgs: a command's first argument from argValues; help's
// are the commands and the help topics.
func TestCompleteArgs(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	ran := false
	app := testApp(f, &ran)
	app.Commands = append(app.Commands,
		&cli.Command{Name: "index2", Subcommands: []*cli.Command{{Name: "download", Action: func(*cli.Context) error { ran = true; return nil }}}},
		&cli.Command{Name: "explain", Flags: []cli.Flag{&cli.BoolFlag{Name: "check"}}, Action: func(*cli.Context) error { ran = true; return nil }},
		clix.HelpTopic("exit-codes", "codes", "EXIT CODES:\n   0  ok"))
	app.Commands[0].Subcommands = append(app.Commands[0].Subcommands, app.Commands[len(app.Commands)-3].Subcommands[0])
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mytool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{"index", "download"}, distroIDs()},
		{[]string{"index", "download", "debian-12"}, nil}, // one argument
		{[]string{"explain"}, []string{"mytool"}},
		{[]string{"explain", "--check"}, []string{"mytool"}},
		{[]string{"explain", "mytool"}, nil},
		{[]string{"help"}, []string{"index", "completion", "index2", "explain", "exit-codes"}},
	} {
		if got := complete(app, tc.words...); !slices.Equal(got, tc.want) {
			t.Errorf("%q<TAB>: %q, want %q", tc.words, got, tc.want)
		}
	}
	if ran {
		t.Error("a completion request ran a command")
	}
}

// TestCommandsOnPathWithAHungDirectory: a $PATH directory whose reading
// never returns (a hung network mount) costs a <TAB> the budget, not the
// shell: the directories read by then are offered.
func TestCommandsOnPathWithAHungDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mytool"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	hung := make(chan struct{})
	t.Cleanup(func() { close(hung) })
	readDir := func(d string) ([]os.DirEntry, error) {
		if d == "/hung" {
			<-hung
		}
		return os.ReadDir(d)
	}
	done := make(chan []string, 1)
	go func() { done <- executablesIn([]string{dir, "/hung", "/usr/bin"}, 200*time.Millisecond, readDir) }()
	select {
	case got := <-done:
		if !slices.Equal(got, []string{"mytool"}) {
			t.Errorf("with a hung directory: %q, want the one read before it", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a hung $PATH directory hangs completion")
	}
}

// TestNamesWithShellMetacharactersAreNotOffered: an executable on $PATH
// whose name a shell would expand or run ($(...), `...`, a glob) is never
// a candidate (the bash script's old compgen -W ran such a name).
func TestNamesWithShellMetacharactersAreNotOffered(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mytool", "g++", "$(touch${IFS}PWNED)", "`id`", "a;b", "x*", "["} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := executablesOf(dir, os.ReadDir); !slices.Equal(got, []string{"g++", "mytool"}) {
		t.Errorf("offered %q; want g++ and mytool alone", got)
	}
}
