package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelfIsTheGoBuildID: the running binary's build is what `go tool
// buildid` says of it; a copy has the same, a program built from other
// code another; a file that is no ELF program is named by its hash.
func TestSelfIsTheGoBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid: %v", err)
	}
	if want := strings.TrimSpace(string(out)); Self() != want || want == "" {
		t.Errorf("Self %q, go tool buildid %q", Self(), want)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "copy")
	if err := os.WriteFile(copyPath, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if id, err := Of(copyPath); err != nil || id != Self() {
		t.Errorf("a copy: %q %v, want %q", id, err, Self())
	}
	other, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := Of(other); err != nil || id == Self() || id == "" {
		t.Errorf("another program: %q %v", id, err)
	}
	text := filepath.Join(dir, "text")
	if err := os.WriteFile(text, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("not a program"))
	if id, err := Of(text); err != nil || id != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("a text file: %q %v, want its sha256", id, err)
	}
}
