package completioncmd

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
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
		{[]string{"index", "query", "--distro"}, nil},            // the cursor is on the value
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
	for _, want := range []string{"complete -c cmdai", "-a 'index'", "-a 'query q'", "-l json", "-l top-k -s k -r"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("fish script lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "secret") {
		t.Errorf("fish script offers the hidden command:\n%s", out)
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
