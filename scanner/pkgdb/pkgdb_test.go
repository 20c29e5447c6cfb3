package pkgdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture writes a dpkg admin directory: a status file and one .list per
// package, and returns it.
func fixture(t *testing.T, status string, lists map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "status"), []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	for pkg, paths := range lists {
		body := strings.Join(paths, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, "info", pkg+".list"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const fixtureStatus = `Package: tar
Status: install ok installed
Priority: required
Architecture: amd64
Version: 1.34+dfsg-1.2+deb12u1
Description: GNU version of the tar archiving utility
 Tar is a program for packaging a set of files
 .
 Version: not this one

Package: mawk
Status: install ok installed
Priority: required
Architecture: amd64
Version: 1.3.4.20200120-3.1

Package: unzip
Status: deinstall ok config-files
Priority: optional
Architecture: amd64
Version: 6.0-28

Package: libfoo1
Status: hold ok installed
Priority: optional
Architecture: amd64
Multi-Arch: same
Version: 2.0-1
`

func TestDpkgOwners(t *testing.T) {
	bin := t.TempDir()
	mawk := filepath.Join(bin, "mawk")
	awk := filepath.Join(bin, "awk") // an alternatives link no package lists
	if err := os.WriteFile(mawk, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mawk, awk); err != nil {
		t.Fatal(err)
	}
	dir := fixture(t, fixtureStatus, map[string][]string{
		"tar":           {"/.", "/bin", "/bin/tar", "/usr/sbin/rmt-tar"},
		"mawk":          {"/.", mawk},
		"unzip":         {"/usr/bin/unzip"}, // removed, its list lingers
		"libfoo1:amd64": {"/usr/bin/foo-config"},
	})
	paths := []string{"/usr/bin/tar", "/sbin/rmt-tar", awk, "/usr/bin/unzip", "/usr/bin/foo-config", "/usr/local/bin/mine"}
	got, err := Dpkg(dir).Owners(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Package{
		"/usr/bin/tar":        {Name: "tar", Version: "1.34+dfsg-1.2+deb12u1", Priority: "required"}, // usrmerge: listed as /bin/tar
		"/sbin/rmt-tar":       {Name: "tar", Version: "1.34+dfsg-1.2+deb12u1", Priority: "required"}, // and the other way round
		awk:                   {Name: "mawk", Version: "1.3.4.20200120-3.1", Priority: "required"},   // through its symlink
		"/usr/bin/foo-config": {Name: "libfoo1", Version: "2.0-1", Priority: "optional"},             // multi-arch list name
	}
	if len(got) != len(want) {
		t.Errorf("got %d owners %v, want %d", len(got), got, len(want))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("owner of %s = %+v, want %+v", p, got[p], w)
		}
	}
	for _, p := range []string{"/usr/bin/unzip", "/usr/local/bin/mine"} {
		if pkg, ok := got[p]; ok {
			t.Errorf("%s owned by %+v, want no owner (removed package, no package)", p, pkg)
		}
	}
}

func TestDpkgBrokenDatabase(t *testing.T) {
	ctx := context.Background()
	if _, err := Dpkg(filepath.Join(t.TempDir(), "none")).Owners(ctx, []string{"/bin/tar"}); err == nil || !strings.Contains(err.Error(), "status") {
		t.Errorf("missing database: err = %v, want one naming the status file", err)
	}
	noLists := fixture(t, fixtureStatus, nil)
	if _, err := Dpkg(noLists).Owners(ctx, []string{"/bin/tar"}); err == nil || !strings.Contains(err.Error(), "file lists") {
		t.Errorf("no lists: err = %v, want one naming the file lists", err)
	}
}

func TestStatusIgnoresGarbage(t *testing.T) {
	got, err := parseStatus(strings.NewReader("garbage without colon\n\nPackage: a\nVersion: 1\n\nPackage: b\nStatus: install ok installed\nVersion: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["a"]; ok {
		t.Error("a package without a Status line counted as installed")
	}
	if got["b"].Version != "2" {
		t.Errorf("b = %+v, want version 2", got["b"])
	}
}

func TestNoneOwnsNothing(t *testing.T) {
	for _, db := range []DB{None(), {}} {
		got, err := db.Owners(context.Background(), []string{"/bin/tar"})
		if err != nil || len(got) != 0 || db.Kind() != KindNone {
			t.Errorf("%v: got %v, %v; want nothing", db.Kind(), got, err)
		}
	}
}

func TestUsrmergeTwin(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/tar": "/bin/tar", "/bin/tar": "/usr/bin/tar", "/usr/sbin/x": "/sbin/x", "/lib64/ld": "/usr/lib64/ld",
		"/usr/local/bin/x": "", "/opt/bin/x": "", "/usr/share/x": "", "bin/x": "",
	} {
		if got := usrmergeTwin(in); got != want {
			t.Errorf("usrmergeTwin(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRPMOwners(t *testing.T) {
	// a stand-in rpm that prints what `rpm -qf --queryformat rpmFormat`
	// prints, and rpm's message and exit status for a file it does not own
	bin := filepath.Join(t.TempDir(), "rpm")
	script := `#!/bin/sh
[ "$1" = -qf ] || exit 9
printf '/usr/bin/tar\ttar\t1.34-6.el9\n/usr/share/man/man1/tar.1.gz\ttar\t1.34-6.el9\n'
echo "file /usr/local/bin/mine is not owned by any package"
exit 1
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := RPM(bin).Owners(context.Background(), []string{"/bin/tar", "/usr/local/bin/mine"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Package{Name: "tar", Version: "1.34-6.el9"}); got["/bin/tar"] != want || len(got) != 1 {
		t.Errorf("got %v, want /bin/tar owned by %+v alone", got, want)
	}
	if _, err := RPM(filepath.Join(t.TempDir(), "no-rpm")).Owners(context.Background(), []string{"/bin/tar"}); err == nil {
		t.Error("a missing rpm gave no error")
	}
}
