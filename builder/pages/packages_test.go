package pages

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/scanner/pkgdb"
)

// dpkgFixture writes a dpkg database in which the package frobutils owns
// frob and refrob (listed under their usrmerge-free path as found) and
// nothing owns the other commands.
func dpkgFixture(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "status"), []byte("Package: frobutils\nStatus: install ok installed\nPriority: important\nVersion: 1.0-2\n\n"), 0o644)
	list := strings.Join([]string{"/.", filepath.Join(bin, "frob"), filepath.Join(bin, "refrob")}, "\n") + "\n"
	write(t, filepath.Join(dir, "info", "frobutils.list"), []byte(list), 0o644)
	return dir
}

func TestRunCarriesTheOwningPackage(t *testing.T) {
	opts := machine(t)
	opts.Packages = pkgdb.Dpkg(dpkgFixture(t, opts.PathDirs[0])).Owners
	rs, st := collect(t, opts)
	byName := map[string]Result{}
	for _, r := range rs {
		byName[r.Command] = r
	}
	frob := byName["frob"]
	if frob.Package != "frobutils" || frob.PackageVersion != "1.0-2" || frob.PackagePriority != "important" {
		t.Errorf("frob's package = %q %q %q, want frobutils 1.0-2 important", frob.Package, frob.PackageVersion, frob.PackagePriority)
	}
	for _, c := range frob.Chunks {
		md := c.Metadata
		if md.Package != "frobutils" || md.PackageVersion != "1.0-2" || md.ShownVersion() != "1.0-2" {
			t.Errorf("record %s: package %q %q, shown version %q; want frobutils 1.0-2", c.ID, md.Package, md.PackageVersion, md.ShownVersion())
		}
		if md.PageSource == "" || md.PageSource == md.ShownVersion() {
			t.Errorf("record %s: page source %q kept apart from the version", c.ID, md.PageSource)
		}
	}
	if r := byName["refrob"]; r.Package != "frobutils" {
		t.Errorf("alias refrob's package = %q, want its own owner frobutils", r.Package)
	}
	if r := byName["unfrob"]; r.Package != "" || r.PackageVersion != "" {
		t.Errorf("unfrob, owned by no package, got %q %q", r.Package, r.PackageVersion)
	}
	if st.PackageOwned != 2 || st.PackageError != "" || st.PackageDB != "custom" {
		t.Errorf("stats: owned %d, db %q, error %q; want 2 owned from the given database", st.PackageOwned, st.PackageDB, st.PackageError)
	}
}

// A package database that cannot be read costs the versions, not the
// run.
func TestRunWithoutAPackageDatabase(t *testing.T) {
	opts := machine(t)
	opts.Packages = pkgdb.Dpkg(filepath.Join(t.TempDir(), "missing")).Owners
	rs, st := collect(t, opts)
	if len(rs) != 6 || st.Parsed != 1 {
		t.Fatalf("run without a package database: %d results, stats %+v", len(rs), st)
	}
	for _, r := range rs {
		if r.Package != "" {
			t.Errorf("%s has package %q without a database", r.Command, r.Package)
		}
		for _, c := range r.Chunks {
			if v := c.Metadata.ShownVersion(); v != "" {
				t.Errorf("%s shows version %q without a database (the page's source field is no version)", c.ID, v)
			}
		}
	}
	if !strings.Contains(st.PackageError, "status") || !strings.Contains(st.PackageError, "no package version") {
		t.Errorf("stats' package error = %q, want why and what it costs", st.PackageError)
	}
}
