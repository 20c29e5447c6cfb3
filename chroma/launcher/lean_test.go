package launcher

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBindings stands in for chromadb_rust_bindings: cli prints its
// arguments and a fingerprint of the program that called it (its bytecode,
// names and constants), so that two launchers can be shown to run one
// program, not two copies that agree today.
const fakeBindings = `import hashlib, json, sys
def cli(argv):
    code = sys._getframe(1).f_code
    # the functions it defines by their bytecode (a code object's repr
    # names its file and address, which differ between the launchers)
    consts = tuple(c.co_code if hasattr(c, "co_code") else c for c in code.co_consts)
    program = code.co_code + repr((code.co_names, consts)).encode()
    print(json.dumps({"argv": argv, "program": hashlib.sha256(program).hexdigest()}))
`

// fakeApp stands in for chromadb's own entry point, the fallback.
const fakeApp = `import json, sys
def app():
    print(json.dumps({"argv": sys.argv, "program": "chromadb.cli.cli:app"}))
    return 0
`

// decoy is a chromadb_rust_bindings that must never be imported: it sits
// where a launcher's Python would look first if the current directory or
// the script's own were on its import path.
const decoy = "import sys\nprint('decoy bindings imported from', __file__)\nsys.exit(3)\n"

type started struct {
	Argv    []string `json:"argv"`
	Program string   `json:"program"`
}

// TestBothLaunchersRunOneProgram runs the Go launcher (pip's entry point
// in a venv) and the launcher `make install` writes (installed by
// scripts/install/install.sh, as install does) on one fake chromadb: both
// must start it from the same program with the same arguments, with the
// bindings and, without them, with chromadb's own entry point; neither may
// import a chromadb_rust_bindings.py from the current directory or from
// beside its scripts.
func TestBothLaunchersRunOneProgram(t *testing.T) {
	python, version := realPython(t)
	dir := t.TempDir()
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}

	// The installed layout, written by install.sh itself.
	installed := filepath.Join(dir, "prefix", "lib", "cmdai", "chroma")
	if out, err := exec.Command("bash", "../../scripts/install/install.sh", "launcher", installed, version).CombinedOutput(); err != nil {
		t.Fatalf("install.sh launcher: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(installed, "lean.py"))
	if err != nil || string(got) != leanLauncher {
		t.Fatalf("install.sh did not install chroma/launcher/lean.py as it is (%v)", err)
	}
	site := filepath.Join(installed, "site-packages")
	// pip's entry point in a venv, whose Python finds the same packages.
	venvBin := filepath.Join(dir, "venv", "bin", "chroma")
	write(venvBin, "#!"+python+"\nimport re\nimport sys\n"+pipEntryPoint+"\nif __name__ == '__main__':\n    sys.exit(app())\n", 0o755)

	work := filepath.Join(dir, "work")
	for _, d := range []string{work, installed, filepath.Join(installed, "bin"), filepath.Dir(venvBin)} {
		write(filepath.Join(d, "chromadb_rust_bindings.py"), decoy, 0o644)
	}

	run := func(what string, cmd *exec.Cmd) started {
		t.Helper()
		cmd.Dir = work
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", what, err, out, stderr.String())
		}
		var s started
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("%s printed %q: %v", what, out, err)
		}
		return s
	}
	both := func(stage string) {
		t.Helper()
		goCmd := Command(venvBin, "run", "--path", "/data")
		if goCmd.Path != python {
			t.Fatalf("the venv's entry point is not run under its Python: %q", goCmd.Args)
		}
		// The venv's Python would find site-packages itself; PYTHONPATH
		// plays that part here.
		goCmd.Env = append(os.Environ(), "PYTHONPATH="+site)
		shCmd := exec.Command(filepath.Join(installed, "bin", "chroma"), "run", "--path", "/data")
		shCmd.Env = append(os.Environ(), "CMDAI_CHROMA_PYTHON="+python)
		g, s := run(stage+", Go launcher", goCmd), run(stage+", installed launcher", shCmd)
		want := []string{"chroma", "run", "--path", "/data"}
		if strings.Join(g.Argv, " ") != strings.Join(want, " ") || g.Program == "" {
			t.Errorf("%s, Go launcher started %+v, want argv %q", stage, g, want)
		}
		if strings.Join(s.Argv, " ") != strings.Join(g.Argv, " ") || s.Program != g.Program {
			t.Errorf("%s: the installed launcher started %+v, the Go launcher %+v", stage, s, g)
		}
	}

	write(filepath.Join(site, "chromadb_rust_bindings.py"), fakeBindings, 0o644)
	both("with the bindings")
	if err := os.Remove(filepath.Join(site, "chromadb_rust_bindings.py")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(site, "chromadb", "__init__.py"), "", 0o644)
	write(filepath.Join(site, "chromadb", "cli", "__init__.py"), "", 0o644)
	write(filepath.Join(site, "chromadb", "cli", "cli.py"), fakeApp, 0o644)
	both("without the bindings")
}

// realPython returns python3's interpreter (not a shim) and its version.
func realPython(t *testing.T) (path, version string) {
	t.Helper()
	out, err := exec.Command("python3", "-c", `import sys; print(sys.executable); print("%d.%d" % sys.version_info[:2])`).Output()
	if err != nil {
		t.Fatalf("python3, which runs the Chroma server: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 || !filepath.IsAbs(lines[0]) {
		t.Fatalf("python3 says %q", out)
	}
	return lines[0], lines[1]
}
