package helprun

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

// TestDeniedByIdentity: a file on the deny list is refused under any name
// that reaches it, a hard link or a symlink by an innocent name, before it
// is run (the marker proves nothing ran); another file is not.
func TestDeniedByIdentity(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	danger := helpfixture.Copy(t, dir, "danger", "touch "+marker+"\necho usage\n")
	hard := filepath.Join(dir, "innocent")
	if err := os.Link(danger, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "also-innocent")
	if err := os.Symlink(danger, soft); err != nil {
		t.Fatal(err)
	}
	h := Runner{DenyFiles: []string{danger}}
	for _, p := range []string{danger, hard, soft} {
		if _, err := h.Run(context.Background(), p); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "it is "+danger) {
			t.Errorf("Run(%s) error = %v, want ErrDenied naming %s", filepath.Base(p), err, danger)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a denied file was run")
	}
	harmless := helpfixture.Copy(t, dir, "harmless", "echo usage\n")
	if out, err := h.Run(context.Background(), harmless); err != nil || string(out) != "usage\n" {
		t.Errorf("Run(harmless) = %q, %v; want it run", out, err)
	}
}

// TestSystemFilesDeniedByIdentity: the files this machine has under the
// deny list's names (sh, rm, dd: on every system the tests run on) are
// known by identity, so a hard link to one by another name is refused;
// a symlink by an innocent name to the shell is refused, never run.
func TestSystemFilesDeniedByIdentity(t *testing.T) {
	needShell(t)
	for _, name := range []string{"sh", "rm", "dd"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		id, ok := fileIDOf(p)
		if !ok || !systemIDs()[id] {
			t.Errorf("%s (%s): identity %v %v not among the denied files", name, p, id, ok)
		}
	}
	sh, _ := exec.LookPath("sh")
	link := filepath.Join(t.TempDir(), "innocent")
	if err := os.Symlink(sh, link); err != nil {
		t.Fatal(err)
	}
	if _, err := (Runner{}).Run(context.Background(), link); !errors.Is(err, ErrDenied) {
		t.Errorf("Run(a symlink to %s) error = %v, want ErrDenied", sh, err)
	}
}

// TestLocalScriptDenied: a #! script outside the distribution's
// directories runs an interpreter on a program of its own: refused, not
// run. (A fixture binary, like most tools, is run: the other tests.)
func TestLocalScriptDenied(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	p := filepath.Join(dir, "deploy")
	if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch "+marker+"\necho usage\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (Runner{}).Run(context.Background(), p); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "local script") {
		t.Errorf("Run(a local script) error = %v, want ErrDenied saying so", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the local script was run")
	}
	for p, want := range map[string]bool{
		"/usr/bin/zless": true, "/usr/lib/node_modules/npm/bin/npm-cli.js": true, "/bin/gunzip": true, "/usr/sbin/tool": true,
		"/usr/local/bin/deploy": false, "/home/u/bin/x": false, "/opt/x/bin/y": false, "/tmp/x": false, "/usrx/bin/y": false,
	} {
		if got := distributionFile(p); got != want {
			t.Errorf("distributionFile(%q) = %v, want %v", p, got, want)
		}
	}
}
