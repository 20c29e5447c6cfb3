package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
)

// TestPackageVersionShown builds a small real index of tar and unzip on
// this machine and checks that --json and --context give, as each
// command's version, the version of the Debian package that owns it as
// dpkg-query reports it: never the man page's title-line source field
// ("TAR", "Info-ZIP").
func TestPackageVersionShown(t *testing.T) {
	realEnv(t)
	want := map[string]string{}
	for _, pkg := range []string{"tar", "unzip"} {
		v, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
		if err != nil || len(v) == 0 {
			t.Fatalf("dpkg-query -W %s (this test needs Debian's %s package, which install-test-deps.sh installs): %v", pkg, pkg, err)
		}
		want[pkg] = string(v)
	}
	if code, out, errOut := runCLI(t, "index", "init", "--distro", "debian-12", "--command", "tar", "--command", "unzip"); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "index", "query", "extract files from an archive", "-k", "2", "--json", "--distro", "debian-12")
	if code != 0 {
		t.Fatalf("query: exit %d %s", code, errOut)
	}
	var res querycmd.QueryResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Commands) != 2 {
		t.Fatalf("want tar and unzip, got %s", out)
	}
	for _, h := range res.Commands {
		if h.Version != want[h.Command] || h.Package != h.Command {
			t.Errorf("--json: %s version %q of package %q, want %q of package %s (dpkg-query)", h.Command, h.Version, h.Package, want[h.Command], h.Command)
		}
	}

	code, out, errOut = runCLI(t, "index", "query", "extract files from an archive", "-k", "2", "--context", "--distro", "debian-12")
	if code != 0 {
		t.Fatalf("query --context: exit %d %s", code, errOut)
	}
	for pkg, v := range want {
		if line := "Version: " + v + " (package " + pkg + ")"; !strings.Contains(out, line) {
			t.Errorf("--context lacks %q:\n%s", line, out)
		}
	}
	for _, bad := range []string{"Version: TAR", "Version: Info-ZIP"} {
		if strings.Contains(out, bad) {
			t.Errorf("--context shows the page's source field as a version (%q):\n%s", bad, out)
		}
	}
}
