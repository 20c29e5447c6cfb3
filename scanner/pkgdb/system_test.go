package pkgdb

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/internal/testmode"
	"github.com/cmdai/cmdai/scanner"
)

// TestSystemDpkgTar reads this machine's dpkg database: tar, as $PATH
// finds it, is owned by the tar package at the version dpkg-query gives.
func TestSystemDpkgTar(t *testing.T) {
	testmode.Heavy(t, "a Debian dpkg database with tar installed")
	want, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "tar").Output()
	if err != nil {
		t.Fatalf("dpkg-query -W tar (this test needs a Debian system with tar): %v", err)
	}
	tar, err := exec.LookPath("tar")
	if err != nil {
		t.Fatal(err)
	}
	db := System()
	if db.Kind() != KindDpkg {
		t.Fatalf("System() = %s, want dpkg", db.Kind())
	}
	got, err := db.Owners(context.Background(), []string{tar})
	if err != nil {
		t.Fatal(err)
	}
	if pkg := got[tar]; pkg.Name != "tar" || pkg.Version != strings.TrimSpace(string(want)) || pkg.Priority != "required" {
		t.Errorf("owner of %s = %+v, want tar %s, priority required", tar, pkg, want)
	}
}

// BenchmarkSystemDpkg is the cost of one build's question: the owners of
// every command on $PATH, from this machine's dpkg database.
func BenchmarkSystemDpkg(b *testing.B) {
	cmds, _, err := scanner.ScanPath(context.Background(), scanner.SplitPath(os.Getenv("PATH")), 2)
	if err != nil {
		b.Fatal(err)
	}
	paths := make([]string, len(cmds))
	for i, c := range cmds {
		paths[i] = c.Path
	}
	owned := 0
	for b.Loop() {
		got, err := Dpkg(DefaultDpkgDir).Owners(context.Background(), paths)
		if err != nil {
			b.Fatal(err)
		}
		owned = len(got)
	}
	b.ReportMetric(float64(len(paths)), "commands")
	b.ReportMetric(float64(owned), "owned")
}
