// The test patches this test binary, an ELF file on Linux only.

//go:build linux

package libcheck

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A file of garbage, and a real ELF of another machine (this test
// binary with its header's machine changed), are told apart.
func TestProblem(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.so")
	if err := os.WriteFile(garbage, []byte("\x00garbage bytes, not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := Problem(garbage); !strings.Contains(p, "not an ELF") {
		t.Errorf("garbage: %q", p)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]byte{"amd64": 0xb7, "arm64": 0x3e}[runtime.GOARCH] // EM_AARCH64, EM_X86_64
	raw[18], raw[19] = other, 0
	wrong := filepath.Join(dir, "wrong.so")
	if err := os.WriteFile(wrong, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := Problem(wrong); !strings.Contains(p, "another machine") {
		t.Errorf("wrong machine: %q", p)
	}
}
