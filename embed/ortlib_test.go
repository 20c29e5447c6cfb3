package embed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmdai/cmdai/config"
)

// fakeInstall lays out PREFIX/bin/cmdai and returns its layout.
func fakeInstall(t *testing.T) config.Install {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prefix", "bin", "cmdai")
	touch(t, bin)
	return config.InstallOf(bin)
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The order: CMDAI_ORT_LIB_DIR alone, else CMDAI_TOOLS, PREFIX/lib/cmdai,
// the checkout's .tools/lib.
func TestFindORTLibDirLayout(t *testing.T) {
	inst := fakeInstall(t)
	none := func(string) string { return "" }
	touch(t, filepath.Join(inst.Tools, "lib", ORTLibName))
	if got := FindORTLibDirFor(none, inst); got != filepath.Join(inst.Tools, "lib") {
		t.Errorf("checkout only: %q", got)
	}
	touch(t, filepath.Join(inst.Lib, ORTLibName))
	if got := FindORTLibDirFor(none, inst); got != inst.Lib {
		t.Errorf("installed: %q; want %s before the checkout's", got, inst.Lib)
	}
	tools := t.TempDir()
	touch(t, filepath.Join(tools, "lib", ORTLibName))
	withTools := func(k string) string {
		if k == "CMDAI_TOOLS" {
			return tools
		}
		return ""
	}
	if got := FindORTLibDirFor(withTools, inst); got != filepath.Join(tools, "lib") {
		t.Errorf("CMDAI_TOOLS: %q", got)
	}
	empty := t.TempDir()
	explicit := func(k string) string {
		if k == EnvORTLibDir {
			return empty
		}
		return withTools(k)
	}
	if got := FindORTLibDirFor(explicit, inst); got != "" {
		t.Errorf("%s set to an empty dir: %q; want nothing (a setting is obeyed)", EnvORTLibDir, got)
	}
}

// The user's installed model first, else the one shipped with cmdai.
func TestPickModelDir(t *testing.T) {
	installed, shipped := t.TempDir(), t.TempDir()
	if got := PickModelDir(installed, shipped); got != installed {
		t.Errorf("neither: %q; want the install place", got)
	}
	touch(t, filepath.Join(shipped, ManifestFile))
	if got := PickModelDir(installed, shipped); got != shipped {
		t.Errorf("shipped only: %q", got)
	}
	touch(t, filepath.Join(installed, ManifestFile))
	if got := PickModelDir(installed, shipped); got != installed {
		t.Errorf("both: %q; want the user's", got)
	}
	if got := PickModelDir(installed, ""); got != installed {
		t.Errorf("no shipped place: %q", got)
	}
}
