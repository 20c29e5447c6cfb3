package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embedtest"
)

func TestModelImportAndStatus(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CMDAI_HOME", home)
	installed := filepath.Join(home, "embeddings", embed.ModelName)

	// a missing model is a failure (1), not "no index yet" (3)
	code, out, stderr := runCLI(t, "model", "status")
	if code != cmdutil.ExitFailure || !strings.Contains(out, "installed: no") || !strings.Contains(stderr, "cmdai model import") {
		t.Errorf("status before import: exit %d\n%s\n%s", code, out, stderr)
	}

	code, out, stderr = runCLI(t, "model", "import", embedtest.FakeModel(t, "stub"))
	if code != 0 || !strings.Contains(out, installed) {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, stderr)
	}

	code, out, _ = runCLI(t, "model", "status", "--json")
	var st embed.ModelStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if code != 0 || !st.Installed || !st.Verified || st.Dir != installed || len(st.Variants) != 1 {
		t.Errorf("status after import: exit %d %+v", code, st)
	}

	// damage the installed model: status exits 5 and names the file
	os.WriteFile(filepath.Join(installed, "tokenizer.json"), []byte("{broken"), 0o644)
	code, out, stderr = runCLI(t, "model", "status")
	if code != cmdutil.ExitVerification || !strings.Contains(out, "does NOT verify") || !strings.Contains(stderr, "tokenizer.json") {
		t.Errorf("status of a damaged model: exit %d\n%s\n%s", code, out, stderr)
	}

	// importing something that is not a model fails with exit 5 and keeps nothing broken in place
	code, _, stderr = runCLI(t, "model", "import", t.TempDir())
	if code != cmdutil.ExitVerification || !strings.Contains(stderr, "manifest") && !strings.Contains(stderr, "not installed") {
		t.Errorf("import of an empty dir: exit %d %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "model", "import"); code != cmdutil.ExitUsage {
		t.Errorf("import without an argument: exit %d", code)
	}
}

// TestModelExportImport: export, then import on "another machine" (another
// home) from the tarball; two exports are byte-identical; sha256sum -c
// accepts the checksums file.
func TestModelExportImport(t *testing.T) {
	t.Setenv("CMDAI_HOME", t.TempDir())
	if code, _, stderr := runCLI(t, "model", "import", embedtest.FakeModel(t, "stub")); code != 0 {
		t.Fatal(stderr)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "model", "export", out)
	tarball := filepath.Join(out, embed.ModelName+".tar.gz")
	if code != 0 || !strings.Contains(stdout, tarball) {
		t.Fatalf("export: exit %d %s %s", code, stdout, stderr)
	}
	first, _ := os.ReadFile(tarball)
	if code, _, stderr := runCLI(t, "model", "export", out); code != 0 {
		t.Fatal(stderr)
	}
	second, _ := os.ReadFile(tarball)
	if string(first) != string(second) {
		t.Error("two exports of the same model differ")
	}
	cmd := exec.Command("sha256sum", "-c", embed.ModelName+".tar.gz.sha256")
	cmd.Dir = out
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v %s", err, b)
	}

	other := t.TempDir()
	t.Setenv("CMDAI_HOME", other)
	if code, stdout, stderr := runCLI(t, "model", "import", tarball); code != 0 || !strings.Contains(stdout, "installed") {
		t.Fatalf("import of the export: exit %d %s %s", code, stdout, stderr)
	}
	if _, err := embed.Verify(filepath.Join(other, "embeddings", embed.ModelName), ""); err != nil {
		t.Errorf("imported model does not verify: %v", err)
	}
	// a damaged installed model is not exported
	os.WriteFile(filepath.Join(other, "embeddings", embed.ModelName, "model.onnx"), []byte("changed"), 0o644)
	if code, _, stderr := runCLI(t, "model", "export", t.TempDir()); code != cmdutil.ExitVerification {
		t.Errorf("export of a damaged model: exit %d %s", code, stderr)
	}
}
