package tarimport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship"
)

// modelDir writes a model directory whose manifest names variant's file
// with sum: what ship.CheckModel compares an index's manifest with.
func modelDir(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("weights"))
	m := embed.Manifest{Name: embed.ModelName, Dims: embed.Dims, Files: map[string]string{"model_int8.onnx": hex.EncodeToString(sum[:])}}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, embed.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, m.Files["model_int8.onnx"]
}

// TestImportCheck: from the manifest alone: the model must be the one
// installed; another distribution's index is asked about (refused
// without a terminal, unless --yes); --distro places it.
func TestImportCheck(t *testing.T) {
	dir, sum := modelDir(t)
	man := packaging.Manifest{Distro: "ubuntu-24.04", OS: "linux", Model: packaging.Model{Name: embed.ModelName, Dims: embed.Dims, SHA256: sum, Variant: "int8"}}
	here := distro.Info{OS: "linux", ID: "debian-12"}
	for _, tc := range []struct {
		name   string
		opts   Options
		in     string
		target string
		code   int
		err    string
	}{
		{"another distribution, no terminal", Options{}, "", "", cmdutil.ExitUsage,
			"the tarball holds ubuntu-24.04's index and this machine is debian-12: pass --yes to import it as ubuntu-24.04's index (for machines of that distribution, or a shared server), or --distro debian-12 to use it here"},
		{"--yes", Options{Yes: true}, "", "cmdai_linux_ubuntu-24.04", 0, ""},
		{"--validate asks nothing", Options{Validate: true}, "", "cmdai_linux_ubuntu-24.04", 0, ""},
		{"--distro", Options{Distro: "debian-12"}, "", "cmdai_linux_debian-12", 0, ""},
		{"answered yes", Options{}, "yes\n", "cmdai_linux_ubuntu-24.04", 0, ""},
		{"answered no", Options{}, "n\n", "", cmdutil.ExitFailure, "nothing imported"},
		{"download asked for another", Options{Yes: true, Expect: "fedora-40"}, "", "", cmdutil.ExitVerification, "asked for fedora-40's index, but the tarball holds ubuntu-24.04's: the release location is mislabelled"},
	} {
		f, _, errOut := cmdtest.Factory(t, nil)
		if tc.in != "" {
			f.IO.ErrTTY, f.IO.In = true, strings.NewReader(tc.in)
		}
		opts := tc.opts
		opts.Factory, opts.ModelDir = f, dir
		target, err := check(&opts, here)(man)
		if tc.err != "" {
			cmdtest.Code(t, err, tc.code, tc.err)
			continue
		}
		if err != nil || target.Collection != tc.target {
			t.Errorf("%s: %+v %v; want %s", tc.name, target, err, tc.target)
		}
		if tc.in != "" && !strings.Contains(errOut.String(), "The tarball holds ubuntu-24.04's index; this machine is debian-12. Import it as ubuntu-24.04's index? [y/N] ") {
			t.Errorf("%s: asked %q", tc.name, errOut)
		}
	}
	// another model: exit 5, before anything else
	f, _, _ := cmdtest.Factory(t, nil)
	other := man
	other.Model.SHA256 = "0123456789abcdef"
	_, err := check(&Options{Factory: f, ModelDir: dir, Yes: true}, here)(other)
	if !errors.Is(err, ship.ErrVerification) {
		t.Errorf("another model: %v; want a verification failure", err)
	}
	cmdtest.Code(t, failed("x", err), cmdutil.ExitVerification, "the index was built with all-MiniLM-L6-v2 int8 (sha256 0123456789ab")
	_, err = check(&Options{Factory: f, ModelDir: t.TempDir(), Yes: true}, here)(man)
	cmdtest.Code(t, failed("x", err), cmdutil.ExitVerification, "none is installed")
}
