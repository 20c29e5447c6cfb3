// Package pkgdb says which installed package owns a file, with that
// package's version and priority, from the system's package database:
// dpkg's files read directly, or one batched rpm query; on a system with
// neither (macOS, a container without one) it knows nothing, and says so
// rather than guess.
package pkgdb

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is the installed package that owns a file.
type Package struct {
	Name    string
	Version string
	// Priority is dpkg's (required, important, standard, optional,
	// extra); rpm has none.
	Priority string
}

// Kind names a package database.
type Kind string

// Kinds of package database.
const (
	KindDpkg Kind = "dpkg"
	KindRPM  Kind = "rpm"
	KindNone Kind = "none"
)

// DefaultDpkgDir is dpkg's administrative directory (status, info/*.list).
const DefaultDpkgDir = "/var/lib/dpkg"

// DB is one package database. The zero value is KindNone: it owns
// nothing.
type DB struct {
	kind Kind
	dir  string // dpkg's admin directory, or the rpm executable
}

// Dpkg reads the dpkg database under dir (DefaultDpkgDir on a system;
// tests give their own).
func Dpkg(dir string) DB { return DB{kind: KindDpkg, dir: dir} }

// RPM asks the rpm executable at bin.
func RPM(bin string) DB { return DB{kind: KindRPM, dir: bin} }

// None is the database of a system without one.
func None() DB { return DB{kind: KindNone} }

// System is this machine's package database: dpkg's when its status file
// exists, else rpm's when rpm is on $PATH, else none.
func System() DB {
	if fi, err := os.Stat(filepath.Join(DefaultDpkgDir, "status")); err == nil && fi.Mode().IsRegular() {
		return Dpkg(DefaultDpkgDir)
	}
	if bin, err := exec.LookPath("rpm"); err == nil {
		return RPM(bin)
	}
	return None()
}

// Kind says which database db reads.
func (db DB) Kind() Kind {
	if db.kind == "" {
		return KindNone
	}
	return db.kind
}

// Owners finds, in one pass over the database, the installed package that
// owns each of paths (executables as found on $PATH). A path no installed
// package owns is absent from the map. An error means the database could
// not be read: callers show no versions then, never a failure.
func (db DB) Owners(ctx context.Context, paths []string) (map[string]Package, error) {
	if len(paths) == 0 {
		return map[string]Package{}, nil
	}
	switch db.Kind() {
	case KindDpkg:
		return dpkgOwners(ctx, db.dir, paths)
	case KindRPM:
		return rpmOwners(ctx, db.dir, paths)
	}
	return map[string]Package{}, nil
}

// mergedDirs are the top-level directories that usrmerge made links into
// /usr: a package may list /bin/tar while $PATH finds /usr/bin/tar, or
// the other way round.
var mergedDirs = map[string]bool{"bin": true, "sbin": true, "lib": true, "lib32": true, "lib64": true, "libx32": true}

// candidates are the names under which a database may list path, best
// first: the path as found (the package that ships the name the user
// types), its usrmerge twin, then the file its symlinks resolve to (an
// alternatives link such as /usr/bin/awk is owned by no package, its
// target /usr/bin/mawk is) and that file's twin.
func candidates(path string) []string {
	out := []string{path}
	add := func(p string) {
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if t := usrmergeTwin(path); t != "" {
		add(t)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && filepath.IsAbs(real) {
		add(real)
		if t := usrmergeTwin(real); t != "" {
			add(t)
		}
	}
	return out
}

// usrmergeTwin is /bin/x for /usr/bin/x and /usr/bin/x for /bin/x (for
// each merged directory), or "" for a path outside them.
func usrmergeTwin(path string) string {
	rest, underUsr := strings.CutPrefix(path, "/usr/")
	if !underUsr {
		rest = strings.TrimPrefix(path, "/")
	}
	top, _, ok := strings.Cut(rest, "/")
	if !ok || !mergedDirs[top] || !strings.HasPrefix(path, "/") {
		return ""
	}
	if underUsr {
		return "/" + rest
	}
	return "/usr/" + rest
}
