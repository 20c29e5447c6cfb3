package chroma

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestServerCommandSkipsThePythonPackage(t *testing.T) {
	dir := t.TempDir()
	python := filepath.Join(dir, "python3")
	if err := os.WriteFile(python, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pip := "# -*- coding: utf-8 -*-\nimport re\nimport sys\n" + pipEntryPoint + "\nif __name__ == '__main__':\n    sys.exit(app())\n"
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// pip's entry point in a venv: its Python runs the bindings directly.
	cmd := serverCommand(write("chroma", "#!"+python+"\n"+pip), "run", "--path", "/data")
	want := []string{python, "-c", leanLauncher, "run", "--path", "/data"}
	if cmd.Path != python || strings.Join(cmd.Args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("pip entry point: %q %q, want %q", cmd.Path, cmd.Args, want)
	}
	// Anything else runs as it is.
	for name, text := range map[string]string{
		"standalone":  "\x7fELF\x02\x01\x01 not a script",
		"wrapper":     "#!/bin/sh\nexec chroma \"$@\"\n",
		"env-python":  "#!/usr/bin/env python3\n" + pip,
		"no-python":   "#!" + filepath.Join(dir, "missing", "python3") + "\n" + pip,
		"not-python":  "#!/bin/sh\n" + pip,
		"interp-args": "#!" + python + " -E\n" + pip,
	} {
		bin := write(name, text)
		if cmd := serverCommand(bin, "run"); cmd.Path != bin || len(cmd.Args) != 2 {
			t.Errorf("%s: %q %q, want %s run", name, cmd.Path, cmd.Args, bin)
		}
	}
	if cmd := serverCommand(filepath.Join(dir, "absent"), "run"); cmd.Args[0] != filepath.Join(dir, "absent") {
		t.Errorf("a missing binary: %q", cmd.Args)
	}
}

// TestPrivateServerWithoutThePythonPackage checks, on the installed
// Chroma, that the private server runs from the bindings and that
// chromadb's Python dependencies are not loaded into it.
func TestPrivateServerWithoutThePythonPackage(t *testing.T) {
	s := startTestServer(t, t.TempDir())
	if runtime.GOOS != "linux" {
		return // no /proc to look into; the server answered, which is the rest
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmdline), "chromadb_rust_bindings.cli") {
		t.Errorf("server command line %q: not the lean launcher (is .tools/chroma a pip venv?)", cmdline)
	}
	maps, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{"chromadb_rust_bindings", "_multiarray_umath", "cygrpc", "_pydantic_core"} {
		if got := strings.Contains(string(maps), lib); got != (lib == "chromadb_rust_bindings") {
			t.Errorf("%s loaded: %v", lib, got)
		}
	}
}
