package docscmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
)

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
