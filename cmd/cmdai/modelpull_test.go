package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embedtest"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/internal/testmode"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship/modeldist"
)

// modelRelease is a release directory holding the model tarball that
// `make dist` publishes, made from the model `make model` built and the
// reranker `make reranker` built.
func modelRelease(t *testing.T) string {
	t.Helper()
	testmode.Heavy(t, "the model `make model` builds")
	src := realModelDir()
	rel := t.TempDir()
	if _, err := modeldist.WriteTarball(context.Background(), src, realRerankerDir(t), rel); err != nil {
		t.Fatalf("model tarball: %v (run `make model reranker`)", err)
	}
	return rel
}

// TestModelPullFromRelease: pull installs the published model from a
// directory, a file:// URL and an HTTP server, and refuses bad tarballs.
func TestModelPullFromRelease(t *testing.T) {
	rel := modelRelease(t)
	t.Run("sources", func(t *testing.T) { pullFromSources(t, rel) })
	t.Run("refused", func(t *testing.T) { pullRefusesBadTarballs(t, rel) })
	t.Run("reranker not installable", func(t *testing.T) { pullRerankerBlocked(t, rel) })
}

// pullRerankerBlocked: when the reranker cannot be copied after both
// checked (its directory's parent is a file here; a full disk in life),
// pull says the model was installed and the reranker was not, and does
// not call it a refused (exit 5) tarball.
func pullRerankerBlocked(t *testing.T, rel string) {
	t.Setenv("CMDAI_HOME", t.TempDir())
	rdst, err := config.ModelDir(os.Getenv, embed.RerankerName)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(filepath.Dir(rdst)), 0o755)
	if err := os.WriteFile(filepath.Dir(rdst), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), embed.ModelName)
	code, out, stderr := runCLI(t, "model", "pull", "--base-url", rel, "--model-dir", dst)
	if code != cmdutil.ExitFailure || !strings.Contains(stderr, "the model was installed in "+dst+", the reranker was not") {
		t.Errorf("exit %d, want %d\n%s%s", code, cmdutil.ExitFailure, out, stderr)
	}
	if err := modeldist.CheckDir(dst); err != nil {
		t.Error(err)
	}
}

// pullFromSources: the pulled model verifies, both variants, and the
// reranker is installed where `model import` puts it.
func pullFromSources(t *testing.T, rel string) {
	srv := httptest.NewServer(http.FileServer(http.Dir(rel)))
	defer srv.Close()
	for _, base := range []string{rel, "file://" + rel, srv.URL} {
		t.Setenv("CMDAI_HOME", t.TempDir())
		rdst, err := config.ModelDir(os.Getenv, embed.RerankerName)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), embed.ModelName)
		code, out, stderr := runCLI(t, "model", "pull", "--base-url", base, "--model-dir", dst)
		if code != 0 || !strings.Contains(out, "pinned") || !strings.Contains(out, dst) || !strings.Contains(out, embed.RerankerName+" in "+rdst) {
			t.Fatalf("pull from %s: exit %d\n%s\n%s", base, code, out, stderr)
		}
		if err := modeldist.CheckRerankerDir(rdst); err != nil {
			t.Errorf("pulled from %s: %v", base, err)
		}
		if _, err := embed.VerifyReranker(rdst, embed.VariantInt8); err != nil {
			t.Errorf("pulled from %s, reranker: %v", base, err)
		}
		for _, v := range []string{embed.VariantFP32, embed.VariantInt8} {
			if _, err := embed.Verify(dst, v); err != nil {
				t.Errorf("pulled from %s, variant %s: %v", base, v, err)
			}
		}
		if err := modeldist.CheckDir(dst); err != nil {
			t.Errorf("pulled from %s: %v", base, err)
		}
	}
	// the default download dir is left without the tarball
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("CMDAI_HOME"), "*", "downloads", "*.tar.gz")); len(left) != 0 {
		t.Errorf("tarballs left behind: %v", left)
	}
}

// pullRefusesBadTarballs: a flipped byte, a truncated tarball, one of
// another model and one without the reranker each exit 5 with a clear
// message, and the model and reranker installed before are left as they
// were.
func pullRefusesBadTarballs(t *testing.T, rel string) {
	good, err := os.ReadFile(filepath.Join(rel, modeldist.TarballName()))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CMDAI_HOME", t.TempDir())
	installed := filepath.Join(t.TempDir(), embed.ModelName)
	if code, _, stderr := runCLI(t, "model", "import", embedtest.FakeModel(t, "before"), "--model-dir", installed); code != 0 {
		t.Fatal(stderr)
	}
	before, _ := os.ReadFile(filepath.Join(installed, embed.ManifestFile))
	rdst, rbefore := installOtherReranker(t)

	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x01
	other := filepath.Join(t.TempDir(), "other.tar.gz")
	if _, err := packaging.WriteFile(other, func(w io.Writer) error {
		return writeModelTar(w, embedtest.FakeModel(t, "another model"))
	}); err != nil {
		t.Fatal(err)
	}
	otherBytes, _ := os.ReadFile(other)
	// the pinned model, but no reranker
	modelOnly := filepath.Join(t.TempDir(), "model-only.tar.gz")
	if _, err := packaging.WriteFile(modelOnly, func(w io.Writer) error {
		return writeModelTar(w, realModelDir())
	}); err != nil {
		t.Fatal(err)
	}
	modelOnlyBytes, _ := os.ReadFile(modelOnly)
	for name, body := range map[string][]byte{
		"flipped byte":  flipped,
		"truncated":     good[:len(good)*2/3],
		"another model": otherBytes,
		"no reranker":   modelOnlyBytes,
	} {
		bad := t.TempDir()
		if err := os.WriteFile(filepath.Join(bad, modeldist.TarballName()), body, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "model", "pull", "--base-url", bad, "--model-dir", installed)
		if code != cmdutil.ExitVerification || !strings.Contains(stderr, "model pull refused") {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, cmdutil.ExitVerification, stderr)
		}
		after, _ := os.ReadFile(filepath.Join(installed, embed.ManifestFile))
		if string(after) != string(before) {
			t.Errorf("%s: the installed model changed", name)
		}
		if _, err := embed.Verify(installed, ""); err != nil {
			t.Errorf("%s: the installed model no longer verifies: %v", name, err)
		}
		if rafter, _ := os.ReadFile(filepath.Join(rdst, embed.ManifestFile)); string(rafter) != string(rbefore) {
			t.Errorf("%s: the installed reranker changed", name)
		}
	}
	// a location without the tarball is not a verification failure
	code, _, stderr := runCLI(t, "model", "pull", "--base-url", t.TempDir(), "--model-dir", installed)
	if code != cmdutil.ExitFailure || !strings.Contains(stderr, modeldist.TarballName()) {
		t.Errorf("empty location: exit %d\n%s", code, stderr)
	}
}

func realModelDir() string {
	if src := os.Getenv("CMDAI_TEST_MODEL_DIR"); src != "" {
		return src
	}
	return repoFile(".tools/model/" + embed.ModelName)
}

// installOtherReranker imports a reranker that is not the pinned one (the
// built one, its manifest's source changed) where pull installs it, and
// returns that dir and its manifest.
func installOtherReranker(t *testing.T) (string, []byte) {
	t.Helper()
	built, src := realRerankerDir(t), t.TempDir()
	entries, _ := os.ReadDir(built)
	for _, e := range entries {
		if err := safefile.CopyFile(filepath.Join(built, e.Name()), filepath.Join(src, e.Name()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := embed.VerifyReranker(src, "")
	if err != nil {
		t.Fatal(err)
	}
	m.Source = "installed before the pull"
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(src, embed.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, "model", "import", src); code != 0 || !strings.Contains(out, embed.RerankerName) {
		t.Fatalf("import reranker: %s%s", out, stderr)
	}
	dst, _ := config.ModelDir(os.Getenv, embed.RerankerName)
	before, err := os.ReadFile(filepath.Join(dst, embed.ManifestFile))
	if err != nil || !strings.Contains(string(before), m.Source) {
		t.Fatalf("the reranker was not imported into %s: %v", dst, err)
	}
	return dst, before
}

// writeModelTar writes dir's files under all-MiniLM-L6-v2/, as a release's
// model tarball lays them out.
func writeModelTar(w io.Writer, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var files []packaging.Entry
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		files = append(files, packaging.Entry{Name: embed.ModelName + "/" + e.Name(), Size: st.Size(), Open: func() (io.ReadCloser, error) { return os.Open(p) }})
	}
	return packaging.WriteTarGz(context.Background(), w, time.Unix(0, 0), files)
}
