package modelcmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/netwait"
	"github.com/cmdai/cmdai/ship/modeldist"
	"github.com/cmdai/cmdai/ship/release"
)

// fakeModel writes a model directory whose manifest matches its files
// (tiny stand-ins for the real ones): what Verify, import and export
// read, never loaded.
func fakeModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	m := embed.Manifest{Name: embed.ModelName, Dims: embed.Dims, MaxSeqLength: 256, Normalize: true, Source: "test", Files: map[string]string{}}
	for _, name := range []string{"tokenizer.json", "config.json", "model.onnx", "model_int8.onnx"} {
		body := []byte("stand-in for " + name)
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		m.Files[name] = hex.EncodeToString(sum[:])
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, embed.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// model runs `model ARGS` through the group, as cmdai does.
func model(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, NewCmdModel(f), env, append([]string{"model"}, args...)...)
}

// sub runs one of the group's commands with its runF.
func sub(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	group := &cli.Command{Name: "model", Subcommands: []*cli.Command{cmd}}
	return cmdtest.Run(t, group, env, append([]string{"model", cmd.Name}, args...)...)
}

func TestStatusFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *StatusOptions
	err := sub(t, newStatusCommand(f, func(o *StatusOptions) error { got = o; return nil }), cmdtest.Env{"CMDAI_MODEL_DIR": "/m", "CMDAI_JSON": "true"}, "--embed-backend", "go")
	if err != nil || got == nil {
		t.Fatal(err)
	}
	if want := (StatusOptions{Factory: f, JSON: true, Model: cmdutil.ModelOptions{Dir: "/m", Backend: "go"}}); *got != want {
		t.Errorf("options %+v, want %+v", *got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "x"}, `unexpected argument "x": cmdai model status takes no arguments`},
		{[]string{"status", "--model-variant", "bf16"}, `--model-variant "bf16": use int8 or fp32`},
		{[]string{"status", "--model-dir", ""}, "--model-dir needs a value"},
		{[]string{"stats"}, "stats"},
	} {
		cmdtest.Usage(t, model(t, f, nil, tc.args...), tc.want)
	}
}

// TestStatusVerified: an installed model that verifies: each variant's
// sha256, exit 0; text and JSON.
func TestStatusVerified(t *testing.T) {
	dir := fakeModel(t)
	f, out, _ := cmdtest.Factory(t, nil)
	if err := model(t, f, nil, "status", "--model-dir", dir, "--embed-backend", "go"); err != nil {
		t.Fatal(err)
	}
	m, _ := embed.ReadManifest(dir)
	for _, want := range []string{
		"model:     all-MiniLM-L6-v2 (384 dims)\n", "directory: " + dir + "\n", "installed: yes, every file matches its sha256",
		"variants:  [fp32 int8]\n", "source:    test\n", "sha256:    int8 " + m.Files["model_int8.onnx"] + "\n", "backend:   go\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	out.Reset()
	if err := model(t, f, nil, "status", "--json", "--model-dir", dir); err != nil {
		t.Fatal(err)
	}
	var st embed.ModelStatus
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || !st.Installed || !st.Verified || st.Dir != dir || !strings.HasPrefix(out.String(), "{\n  \"schema_version\": 1,") {
		t.Errorf("--json: %v\n%s", err, out)
	}
}

// TestStatusCorrupt: a file that does not match is exit 5, and the
// status says so (in JSON too, printed before the error).
func TestStatusCorrupt(t *testing.T) {
	dir := fakeModel(t)
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("swapped"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, _ := cmdtest.Factory(t, nil)
	err := model(t, f, nil, "status", "--model-dir", dir)
	cmdtest.Code(t, err, cmdutil.ExitVerification, "model.onnx has sha256")
	if !strings.Contains(out.String(), "installed: yes, but it does NOT verify\n") {
		t.Errorf("status:\n%s", out)
	}
	out.Reset()
	err = model(t, f, nil, "status", "--model-dir", dir, "--json")
	cmdtest.Code(t, err, cmdutil.ExitVerification, "do not match")
	if !strings.Contains(out.String(), `"verified": false`) {
		t.Errorf("--json:\n%s", out)
	}
}

// TestImport: the source reaches runF; a model directory is installed
// into --model-dir and verified; a directory without one is exit 5.
func TestImport(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var got *ImportOptions
	if err := sub(t, newImportCommand(f, func(o *ImportOptions) error { got = o; return nil }), cmdtest.Env{"CMDAI_MODEL_DIR": "/dst"}, "./m.tar.gz"); err != nil {
		t.Fatal(err)
	}
	if want := (ImportOptions{Factory: f, Source: "./m.tar.gz", ModelDir: "/dst"}); got == nil || *got != want {
		t.Errorf("options %+v, want %+v", got, want)
	}
	cmdtest.Usage(t, model(t, f, nil, "import"), "model import takes one DIR or TAR")
	cmdtest.Usage(t, model(t, f, nil, "import", "a", "b"), `unexpected argument "b"`)

	dst := filepath.Join(t.TempDir(), "installed")
	if err := model(t, f, nil, "import", fakeModel(t), "--model-dir", dst); err != nil {
		t.Fatal(err)
	}
	if want := "installed all-MiniLM-L6-v2 (4 files verified) in " + dst + "\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out, want)
	}
	if _, err := embed.Verify(dst, "int8"); err != nil {
		t.Errorf("installed model: %v", err)
	}
	err := model(t, f, nil, "import", t.TempDir(), "--model-dir", dst)
	cmdtest.Code(t, err, cmdutil.ExitVerification, "not installed")
}

// TestImportDefaultDir: without --model-dir the model goes into the data
// root's.
func TestImportDefaultDir(t *testing.T) {
	home := t.TempDir()
	f, out, _ := cmdtest.Factory(t, cmdtest.Env{"CMDAI_HOME": home})
	if err := model(t, f, nil, "import", fakeModel(t)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "installed all-MiniLM-L6-v2 (4 files verified) in "+home+string(filepath.Separator)) {
		t.Errorf("printed %q; want the model under %s", out, home)
	}
}

// TestPullFlags: defaults, --url implying --hub, and the refusals.
func TestPullFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *PullOptions
	pull := func(env cmdtest.Env, args ...string) error {
		got = nil
		return sub(t, newPullCommand(f, func(o *PullOptions) error { got = o; return nil }), env, args...)
	}
	if err := pull(nil); err != nil || got == nil {
		t.Fatal(err)
	}
	if want := (PullOptions{Factory: f, Base: release.DefaultBase, URL: embed.HubURL, IdleTimeout: netwait.DefaultIdleTimeout}); !reflect.DeepEqual(*got, want) {
		t.Errorf("defaults %+v, want %+v", *got, want)
	}
	if err := pull(cmdtest.Env{"CMDAI_RELEASE_URL": "/mirror", "CMDAI_STALL_TIMEOUT": "2m"}, "--dir", "/dl", "--model-dir", "/m"); err != nil ||
		got.Base != "/mirror" || got.IdleTimeout != 2*time.Minute || got.Dir != "/dl" || got.ModelDir != "/m" || got.Hub {
		t.Errorf("from the environment: %+v %v", got, err)
	}
	// the old spellings of --stall-timeout still work
	if err := pull(cmdtest.Env{"CMDAI_IDLE_TIMEOUT": "3m"}); err != nil || got.IdleTimeout != 3*time.Minute {
		t.Errorf("CMDAI_IDLE_TIMEOUT: %+v %v", got, err)
	}
	if err := pull(nil, "--idle-timeout", "4m"); err != nil || got.IdleTimeout != 4*time.Minute {
		t.Errorf("--idle-timeout: %+v %v", got, err)
	}
	if err := pull(nil, "--url", "https://hub.mirror/x"); err != nil || !got.Hub || got.URL != "https://hub.mirror/x" {
		t.Errorf("--url: %+v %v; want --hub implied", got, err)
	}
	// the variable sets --url, and so implies --hub as the flag does
	if err := pull(cmdtest.Env{"CMDAI_MODEL_URL": "https://m"}); err != nil || !got.Hub || got.URL != "https://m" {
		t.Errorf("CMDAI_MODEL_URL: %+v %v; want --hub implied", got, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hub", "--base-url", "/m"}, "--base-url (a release) and --hub/--url (the hub) are two sources: give one"},
		{[]string{"--url", "https://h", "--base-url", "/m"}, "two sources"},
		{[]string{"--stall-timeout", "0s"}, "--stall-timeout must be more than 0, e.g. 30s or 2m"},
		{[]string{"mirror"}, `unexpected argument "mirror": cmdai model pull takes no arguments; --base-url URL names a mirror`},
	} {
		err := pull(nil, tc.args...)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
		cmdtest.Usage(t, err, tc.want)
	}
}

// TestPullFromEmptyMirror: a mirror directory without the model tarball
// fails, and the installed model (none) is left alone.
func TestPullFromEmptyMirror(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	dst := filepath.Join(t.TempDir(), "m")
	err := model(t, f, nil, "pull", "--base-url", t.TempDir(), "--dir", t.TempDir(), "--model-dir", dst)
	cmdtest.Code(t, err, cmdutil.ExitFailure, "has no "+modeldist.TarballName()+", the model this cmdai pins")
	if out.Len() != 0 {
		t.Errorf("printed %q", out)
	}
	if _, serr := os.Stat(dst); !os.IsNotExist(serr) {
		t.Errorf("%s after a failed pull: %v", dst, serr)
	}
}

// TestExport: the installed model (four files and the manifest) to a
// tarball with its checksums file;
// a missing model is exit 5; the output's directory must exist.
func TestExport(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var got *ExportOptions
	if err := sub(t, newExportCommand(f, func(o *ExportOptions) error { got = o; return nil }), nil, t.TempDir(), "--model-dir", "/m"); err != nil || got == nil || got.ModelDir != "/m" {
		t.Fatalf("runF: %+v %v", got, err)
	}
	cmdtest.Usage(t, model(t, f, nil, "export"), "say where to write the model tarball")
	cmdtest.Usage(t, model(t, f, nil, "export", "/no/such/dir/m.tar.gz"), "/no/such/dir")

	outDir := t.TempDir()
	if err := model(t, f, nil, "export", outDir, "--model-dir", fakeModel(t)); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(outDir, "all-MiniLM-L6-v2.tar.gz")
	sums, err := os.ReadFile(tarball + ".sha256")
	if err != nil {
		t.Fatal(err)
	}
	sum := strings.Fields(string(sums))[0]
	want := "exported all-MiniLM-L6-v2 (5 files) to " + tarball + "\n  sha256 " + sum + " in " + tarball + ".sha256\nnext, on the other machine: cmdai model import all-MiniLM-L6-v2.tar.gz\n"
	if out.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", out, want)
	}
	// and it imports
	dst := filepath.Join(t.TempDir(), "m")
	if err := model(t, f, nil, "import", tarball, "--model-dir", dst); err != nil {
		t.Errorf("import of the export: %v", err)
	}
	err = model(t, f, nil, "export", t.TempDir(), "--model-dir", t.TempDir())
	cmdtest.Code(t, err, cmdutil.ExitVerification, "not installed")
}
