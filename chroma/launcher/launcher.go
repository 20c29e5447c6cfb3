// Package launcher picks the command that runs a `chroma` server:
// pip's entry point through its Rust bindings alone, anything else as it is.
// The program that starts the bindings, lean.py, is also the one the
// launcher of `make install` runs (scripts/install/install.sh copies it).
package launcher

import (
	"bufio"
	"bytes"
	_ "embed"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// pipEntryPoint is what pip writes into the `chroma` script of chromadb
// 1.x: `from chromadb.cli.cli import app`. That app imports the whole
// chromadb Python package (numpy, gRPC, pydantic, OpenTelemetry: about 70
// MiB resident, BENCHMARKS.md) and then only hands its arguments to the
// Rust server in chromadb_rust_bindings, which needs none of it.
const pipEntryPoint = "from chromadb.cli.cli import app"

// leanLauncher starts the Rust server straight from chromadb_rust_bindings
// (lean.py says how). It is the one program both launchers run: this one
// passes it with `python -c`, the one `make install` writes
// (scripts/install/chroma-launcher.sh) runs the copy of lean.py installed
// beside it. Under `-c` it drops the current directory from the import
// path, so that no file where cmdai was started can stand in for the
// bindings. A chromadb without the bindings (older, pure Python) falls back
// to its own entry point, so the server starts as it always did.
//
//go:embed lean.py
var leanLauncher string

// Command is the command that runs `bin args...`: pip's chroma entry
// point is run as leanLauncher (no directory to add: the venv's Python
// has its own site-packages) under the script's own Python; any other
// executable (a standalone chroma binary, a wrapper) as it is.
func Command(bin string, args ...string) *exec.Cmd {
	if python, ok := pipPython(bin); ok {
		return exec.Command(python, append([]string{"-c", leanLauncher, ""}, args...)...)
	}
	return exec.Command(bin, args...)
}

// JailFD is the descriptor a jailed server's listening unix socket is
// passed as (ExtraFiles: 3 is the data directory's lock).
const JailFD = 4

// Jailed is the command that runs `bin args...` in a network namespace of
// its own, reachable only through the listening unix socket passed as
// JailFD (lean.py's jail), and ok true, when bin runs lean.py: pip's
// entry point (run as this build's leanLauncher) or the launcher `make
// install` writes, when the lean.py installed beside it has the jail (an
// older installation's does not: ok false). args must hold --port, the
// server's port inside the namespace.
func Jailed(bin string, args ...string) (*exec.Cmd, bool) {
	return jailed(bin, strconv.Itoa(JailFD), args...)
}

// JailCheck is the command that only makes the jail and exits 0, or
// NoJail when this kernel gives none (`cmdai doctor`), and ok as Jailed.
func JailCheck(bin string) (*exec.Cmd, bool) { return jailed(bin, "check") }

func jailed(bin, fd string, args ...string) (*exec.Cmd, bool) {
	flag := "--cmdai-socket-fd=" + fd
	if python, ok := pipPython(bin); ok {
		return exec.Command(python, append([]string{"-c", leanLauncher, "", flag}, args...)...), true
	}
	if installedHasJail(bin) {
		return exec.Command(bin, append([]string{flag}, args...)...), true
	}
	return nil, false
}

// jailMark is a line only a lean.py with the jail holds.
const jailMark = `"--cmdai-socket-fd="`

// installedHasJail tells whether bin is the launcher `make install`
// writes (scripts/install/chroma-launcher.sh, which runs ../lean.py)
// with a lean.py that has the jail.
func installedHasJail(bin string) bool {
	head, err := readHead(bin)
	if err != nil || !bytes.Contains(head, []byte(`/lean.py" "$site" "$@"`)) {
		return false
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return false
	}
	lean, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "lean.py"))
	return err == nil && bytes.Contains(lean, []byte(jailMark))
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 8192)) // the scripts are a few lines
}

// pipPython returns the interpreter of bin when bin is pip's chroma entry
// point with an absolute Python interpreter on its #! line.
func pipPython(bin string) (string, bool) {
	head, err := readHead(bin)
	if err != nil || !bytes.Contains(head, []byte(pipEntryPoint)) {
		return "", false
	}
	first, _ := bufio.NewReader(bytes.NewReader(head)).ReadString('\n')
	interp, ok := strings.CutPrefix(strings.TrimSpace(first), "#!")
	if !ok {
		return "", false
	}
	// One absolute interpreter path and no arguments: pip's form in a venv.
	// Anything else (`/usr/bin/env python3`, flags) is left to the script.
	fields := strings.Fields(interp)
	if len(fields) != 1 || !filepath.IsAbs(fields[0]) || !strings.HasPrefix(filepath.Base(fields[0]), "python") {
		return "", false
	}
	if st, err := os.Stat(fields[0]); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", false
	}
	return fields[0], true
}

// NoJail is the exit status of a jailed server (lean.py) on a kernel that
// gives no private network namespace (user namespaces disabled or
// restricted): started again unjailed, it listens on loopback.
const NoJail = 75
