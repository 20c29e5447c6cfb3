package chroma

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmdai/cmdai/config"
)

// The order: CMDAI_TOOLS's venv, PREFIX/lib/cmdai/chroma/bin/chroma,
// the checkout's .tools venv, then PATH.
func TestFindBinLayout(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	bin := filepath.Join(t.TempDir(), "prefix", "bin", "cmdai")
	mkExe(t, bin)
	inst := config.InstallOf(bin)
	none := func(string) string { return "" }
	if _, err := FindBinFor("", none, inst); err == nil {
		t.Fatal("found a chroma in an empty layout")
	}
	onPath := filepath.Join(os.Getenv("PATH"), "chroma")
	mkExe(t, onPath)
	if got, err := FindBinFor("", none, inst); err != nil || got != onPath {
		t.Errorf("PATH: %q, %v", got, err)
	}
	checkout := filepath.Join(inst.Tools, "chroma", "venv", "bin", "chroma")
	mkExe(t, checkout)
	if got, _ := FindBinFor("", none, inst); got != checkout {
		t.Errorf("checkout: %q", got)
	}
	mkExe(t, inst.ChromaBin())
	if got, _ := FindBinFor("", none, inst); got != inst.ChromaBin() {
		t.Errorf("installed: %q; want %s", got, inst.ChromaBin())
	}
	tools := t.TempDir()
	mkExe(t, filepath.Join(tools, "chroma", "venv", "bin", "chroma"))
	env := func(k string) string {
		if k == "CMDAI_TOOLS" {
			return tools
		}
		return ""
	}
	if got, _ := FindBinFor("", env, inst); got != filepath.Join(tools, "chroma", "venv", "bin", "chroma") {
		t.Errorf("CMDAI_TOOLS: %q", got)
	}
}

func mkExe(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
