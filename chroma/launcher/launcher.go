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

// pipPython returns the interpreter of bin when bin is pip's chroma entry
// point with an absolute Python interpreter on its #! line.
func pipPython(bin string) (string, bool) {
	f, err := os.Open(bin)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, 4096)) // the script is a few lines
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
