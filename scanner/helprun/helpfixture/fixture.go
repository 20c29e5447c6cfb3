// Package helpfixture makes made-up commands for tests that read --help
// output: native executables, as most tools are, since helprun refuses a
// local #! script. Each is a hard link to (or a copy of) the running test
// binary with a shell script kept beside it; the test package's TestMain
// calls Main first, so that the binary started under such a name runs its
// script instead of the tests. Only tests import it.
package helpfixture

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// scriptOf is the script a fixture at exe runs: beside it, not executable
// (a $PATH scan does not take it for a command).
func scriptOf(exe string) string { return exe + ".sh" }

// Write makes dir/name a fixture that runs body (shell commands) with its
// arguments, and returns its path: a hard link to the test binary when
// the file system allows, else a copy. Fixtures made by Write may share
// one identity (device and inode); Copy makes one of its own. Never write
// into a fixture's file: a hard link's bytes are the test binary's.
func Write(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	exe := self(t)
	if err := os.Link(exe, p); err != nil {
		copyFile(t, exe, p)
	}
	writeScript(t, p, body)
	return p
}

// Copy is Write with a copy of the test binary: a file of its own.
func Copy(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	copyFile(t, self(t), p)
	writeScript(t, p, body)
	return p
}

func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	return exe
}

func writeScript(t testing.TB, p, body string) {
	t.Helper()
	if err := os.WriteFile(scriptOf(p), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies src to a new executable dst, closed before it is run
// (a file open for writing cannot be executed).
func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
