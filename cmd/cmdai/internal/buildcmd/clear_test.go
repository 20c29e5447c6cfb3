package buildcmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
)

// runClearCmd runs `index clear ARGS` with runF capturing the options.
func runClearCmd(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, args ...string) (*ClearOptions, error) {
	t.Helper()
	var got *ClearOptions
	err := cmdtest.Run(t, cmdtest.Index(NewCmdClear(f, func(o *ClearOptions) error { got = o; return nil })), env, append([]string{"index", "clear"}, args...)...)
	return got, err
}

// TestClearFlags: --confirm and its aliases, --all, --distro (or
// CMDAI_DISTRO) reach the options.
func TestClearFlags(t *testing.T) {
	for _, tc := range []struct {
		env  cmdtest.Env
		args []string
		want ClearOptions
	}{
		{nil, []string{"--confirm"}, ClearOptions{Confirm: true}},
		{nil, []string{"--yes", "--all"}, ClearOptions{Confirm: true, All: true}},
		{nil, []string{"-y", "--distro", "fedora-40", "--chroma-url", "http://c:1"}, ClearOptions{Confirm: true, Distro: "fedora-40", Chroma: cmdutil.ChromaOptions{URL: "http://c:1"}}},
		{cmdtest.Env{"CMDAI_DISTRO": "arch"}, []string{"--confirm"}, ClearOptions{Confirm: true, Distro: "arch"}},
		// the variable is a default --all overrides; only the command line's --distro conflicts
		{cmdtest.Env{"CMDAI_DISTRO": "arch"}, []string{"--confirm", "--all"}, ClearOptions{Confirm: true, All: true, Distro: "arch"}},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		got, err := runClearCmd(t, f, tc.env, tc.args...)
		if err != nil || got == nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		tc.want.Factory = f
		tc.want.Chroma.TokenHeader = "Authorization"
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%v:\n got %+v\nwant %+v", tc.args, *got, tc.want)
		}
	}
}

// TestClearRefuses: without a terminal only --confirm deletes, and the
// refusal names what would have been deleted; nothing it does not
// understand may pick what is deleted.
func TestClearRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "index clear deletes this distribution's index: pass --confirm to do it (nothing was deleted)"},
		{[]string{"--all"}, "index clear deletes every cmdai index: pass --confirm"},
		{[]string{"--distro", "fedora-40"}, "index clear deletes fedora-40's index: pass --confirm"},
		{[]string{"--confirm", "--all", "--distro", "arch"}, "--all clears every cmdai index and --distro arch one of them: give one of the two; nothing was deleted"},
		{[]string{"--confirm", "debian-12"}, `unexpected argument "debian-12": cmdai index clear takes no arguments; nothing was deleted (--distro ID clears another distribution's index, --all every cmdai index)`},
		{[]string{"--confirm", "--distro", "Debian 12"}, `--distro: invalid distribution id "Debian 12"`},
		{[]string{"--confirm", "--distro", ""}, "--distro needs a value"},
		{[]string{"--confirm", "--al"}, "unknown flag --al"},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		got, err := runClearCmd(t, f, nil, tc.args...)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
		cmdtest.Usage(t, err, tc.want)
	}
	// a terminal that can answer is asked instead (the run decides)
	f, _, _ := cmdtest.Factory(t, nil)
	f.IO.OutTTY, f.IO.In = true, strings.NewReader("y\n")
	if got, err := runClearCmd(t, f, nil); err != nil || got == nil || got.Confirm {
		t.Errorf("at a terminal: %+v %v; want the run to ask", got, err)
	}
}

// TestClearChromaDown: the real run reaches Chroma for the index to
// delete; a server that does not answer is exit 4, and nothing printed.
func TestClearChromaDown(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var connects int
	f.Connect = cmdtest.Unreachable(&connects)
	err := cmdtest.Run(t, cmdtest.Index(NewCmdClear(f, nil)), nil, "index", "clear", "--confirm", "--distro", "debian-12")
	cmdtest.Code(t, err, cmdutil.ExitUnreachable, "does not answer")
	if connects != 1 || out.Len() != 0 {
		t.Errorf("%d connections, stdout %q", connects, out)
	}
}

// TestDocsNew: `index docs new NAME` writes the template into --dir, or
// the configuration's commands directory; an existing doc is kept unless
// --force.
func TestDocsNew(t *testing.T) {
	home := t.TempDir()
	f, out, _ := cmdtest.Factory(t, cmdtest.Env{"CMDAI_HOME": home})
	if err := cmdtest.Run(t, cmdtest.Index(NewCmdDocs(f, nil)), nil, "index", "docs", "new", "kubectl"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "config", "commands", "kubectl.md")
	if want := "wrote " + path + ": edit it, then run `cmdai index refresh`\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out, want)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "command: kubectl") {
		t.Errorf("%s: %v\n%s", path, err, b)
	}
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = cmdtest.Run(t, cmdtest.Index(NewCmdDocs(f, nil)), nil, "index", "docs", "new", "kubectl")
	cmdtest.Usage(t, err, path+" exists: edit it, or pass --force to start over")
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Errorf("the existing doc was overwritten: %q", b)
	}
	if err := cmdtest.Run(t, cmdtest.Index(NewCmdDocs(f, nil)), nil, "index", "docs", "new", "kubectl", "--force"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) == "mine" {
		t.Error("--force kept the old doc")
	}
	dir := filepath.Join(t.TempDir(), "sub")
	if err := cmdtest.Run(t, cmdtest.Index(NewCmdDocs(f, nil)), nil, "index", "docs", "new", "--dir", dir, "mytool"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mytool.md")); err != nil {
		t.Errorf("--dir: %v", err)
	}
}

// TestDocsNewArgs: the name reaches runF; a missing, extra or bad name is
// a usage error.
func TestDocsNewArgs(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *DocsNewOptions
	cmd := NewCmdDocs(f, func(o *DocsNewOptions) error { got = o; return nil })
	if err := cmdtest.Run(t, cmdtest.Index(cmd), nil, "index", "docs", "new", "git-lfs", "--dir", "/d", "--force"); err != nil {
		t.Fatal(err)
	}
	if want := (DocsNewOptions{Factory: f, Name: "git-lfs", Dir: "/d", Force: true}); got == nil || *got != want {
		t.Errorf("options %+v, want %+v", got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"docs", "new"}, "say which command the doc is for: cmdai index docs new NAME"},
		{[]string{"docs", "new", "a", "b"}, `unexpected argument "b"`},
		{[]string{"docs", "new", "../etc/passwd"}, `"../etc/passwd" is not a command name`},
		{[]string{"docs", "new", ""}, "empty argument"},
	} {
		got = nil
		err := cmdtest.Run(t, cmdtest.Index(NewCmdDocs(f, func(o *DocsNewOptions) error { got = o; return nil })), nil, append([]string{"index"}, tc.args...)...)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
		cmdtest.Usage(t, err, tc.want)
	}
}
