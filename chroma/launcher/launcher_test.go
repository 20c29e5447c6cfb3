package launcher

import (
	"os"
	"path/filepath"
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
	cmd := Command(write("chroma", "#!"+python+"\n"+pip), "run", "--path", "/data")
	want := []string{python, "-c", leanLauncher, "", "run", "--path", "/data"}
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
		if cmd := Command(bin, "run"); cmd.Path != bin || len(cmd.Args) != 2 {
			t.Errorf("%s: %q %q, want %s run", name, cmd.Path, cmd.Args, bin)
		}
	}
	if cmd := Command(filepath.Join(dir, "absent"), "run"); cmd.Args[0] != filepath.Join(dir, "absent") {
		t.Errorf("a missing binary: %q", cmd.Args)
	}
}
