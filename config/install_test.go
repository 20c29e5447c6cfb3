package config

import (
	"os"
	"path/filepath"
	"testing"
)

// A symlink to an installed binary (~/bin/cmdai -> PREFIX/bin/cmdai)
// finds the parts beside the real one.
func TestInstallOfFollowsSymlink(t *testing.T) {
	root := t.TempDir()
	prefix := filepath.Join(root, "prefix")
	bin := filepath.Join(prefix, "bin", "cmdai")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "home", "bin", "cmdai")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	realPrefix, _ := filepath.EvalSymlinks(prefix)
	inst := InstallOf(link)
	want := Install{
		Bin:   filepath.Join(realPrefix, "bin", "cmdai"),
		Lib:   filepath.Join(realPrefix, "lib", "cmdai"),
		Share: filepath.Join(realPrefix, "share", "cmdai"),
		Tools: filepath.Join(realPrefix, ".tools"),
	}
	if inst != want {
		t.Errorf("InstallOf(link) = %+v; want %+v", inst, want)
	}
	if got := inst.ModelDir("all-MiniLM-L6-v2"); got != filepath.Join(realPrefix, "share", "cmdai", "models", "all-MiniLM-L6-v2") {
		t.Errorf("ModelDir = %q", got)
	}
	if got := inst.ChromaBin(); got != filepath.Join(realPrefix, "lib", "cmdai", "chroma", "bin", "chroma") {
		t.Errorf("ChromaBin = %q", got)
	}
	if (InstallOf("") != Install{}) || InstallOf("").ModelDir("m") != "" || InstallOf("").ChromaBin() != "" {
		t.Error("an unknown binary must name no places")
	}
}
