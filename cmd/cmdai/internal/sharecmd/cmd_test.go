package sharecmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/netx"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship"
	"github.com/cmdai/cmdai/ship/release"
)

// index runs `index ARGS` with cmd under the group, as cmdai does.
func index(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
}

var defaultChroma = cmdutil.ChromaOptions{TokenHeader: "Authorization"}

func TestExportFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *ExportOptions
	// a new command for each run, as cmdai makes for each process
	cmd := func() *cli.Command { return NewCmdExport(f, func(o *ExportOptions) error { got = o; return nil }) }
	out := t.TempDir()
	if err := index(t, cmd(), cmdtest.Env{"CMDAI_DISTRO": "arch", "CMDAI_JSON": "1"}, out, "--chroma-url", "http://c:1"); err != nil {
		t.Fatal(err)
	}
	want := ExportOptions{Factory: f, Output: out, Distro: "arch", JSON: true, Chroma: cmdutil.ChromaOptions{URL: "http://c:1", TokenHeader: "Authorization"}}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("options %+v, want %+v", got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "say where to write the tarball, e.g. `cmdai index export chroma-index.tar.gz`"},
		{[]string{"a.tar.gz", "b.tar.gz"}, `unexpected argument "b.tar.gz": cmdai index export takes one argument`},
		{[]string{"/no/such/dir/x.tar.gz"}, "/no/such/dir"},
		{[]string{out, "--distro", "Debian 12"}, `--distro: invalid distribution id "Debian 12"`},
	} {
		got = nil
		cmdtest.Usage(t, index(t, cmd(), nil, tc.args...), tc.want)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
	}
}

// TestExportChromaDown: export opens this machine's index: an
// unreachable Chroma is exit 4, and nothing is written.
func TestExportChromaDown(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var connects int
	f.Connect = cmdtest.Unreachable(&connects)
	dir := t.TempDir()
	cmdtest.Code(t, index(t, NewCmdExport(f, nil), nil, dir), cmdutil.ExitUnreachable, "does not answer")
	if entries, _ := os.ReadDir(dir); connects != 1 || len(entries) != 0 || out.Len() != 0 {
		t.Errorf("%d connections, %d files written, printed %q", connects, len(entries), out)
	}
}

func TestImportFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *ImportOptions
	cmd := func() *cli.Command { return NewCmdImport(f, func(o *ImportOptions) error { got = o; return nil }) }
	env := cmdtest.Env{"CMDAI_MODEL_DIR": "/m", "CMDAI_RELEASE_PUBLIC_KEY": "site.pub"}
	if err := index(t, cmd(), env, "x.tar.gz", "--verify", "-y", "--json", "--batch-mode", "--write-batch", "50", "--require-signature", "--distro", "ubuntu-24.04"); err != nil {
		t.Fatal(err)
	}
	want := ImportOptions{Factory: f, Path: "x.tar.gz", Validate: true, Yes: true, JSON: true, BatchMode: true, WriteBatch: 50, RequireSignature: true,
		Distro: "ubuntu-24.04", ModelDir: "/m", PublicKey: "site.pub", Chroma: defaultChroma}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("options:\n got %+v\nwant %+v", got, want)
	}
	// the global --batch-mode counts too
	got = nil
	if err := cmdtest.Run(t, cmdtest.Index(cmd()), nil, "--batch-mode", "index", "import", "x.tar.gz"); err != nil || got == nil || !got.BatchMode || got.Validate {
		t.Errorf("global --batch-mode: %+v %v", got, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "say which tarball to import"},
		{[]string{"x.tar.gz", "--write-batch", "-1"}, "--write-batch must be 0 or more, not -1"},
		{[]string{"x.tar.gz", "--distro", "a/b"}, "--distro: invalid distribution id"},
		{[]string{"x.tar.gz", "--validat"}, "unknown flag --validat"},
	} {
		got = nil
		cmdtest.Usage(t, index(t, cmd(), nil, tc.args...), tc.want)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
	}
}

// TestImportRefusesBeforeChroma: what is not a tarball, or a damaged one,
// is refused before a server is started; the index is said unchanged.
func TestImportRefusesBeforeChroma(t *testing.T) {
	f, out, errOut := cmdtest.Factory(t, nil)
	var connects int
	f.Connect = cmdtest.Unreachable(&connects)
	dir := t.TempDir()
	cmdtest.Code(t, index(t, NewCmdImport(f, nil), nil, dir), cmdutil.ExitFailure, "import: "+dir+" is not a tarball to import")
	cmdtest.Code(t, index(t, NewCmdImport(f, nil), nil, filepath.Join(dir, "none.tar.gz")), cmdutil.ExitFailure, "is not a tarball to import")
	junk := filepath.Join(dir, "chroma-index-debian-12.tar.gz")
	if err := os.WriteFile(junk, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := index(t, NewCmdImport(f, nil), nil, junk)
	cmdtest.Code(t, err, cmdutil.ExitVerification, "the previous index is unchanged")
	if connects != 0 || out.Len() != 0 {
		t.Errorf("%d connections, printed %q", connects, out)
	}
	if want := "note: no chroma-index-debian-12.tar.gz.sha256 or checksums.txt beside " + junk + ": only the checksums inside the tarball are checked\n"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q; want %q", errOut, want)
	}
	// --json keeps stderr for errors
	errOut.Reset()
	cmdtest.Code(t, index(t, NewCmdImport(f, nil), nil, junk, "--json"), cmdutil.ExitVerification, "unchanged")
	if errOut.Len() != 0 {
		t.Errorf("--json: stderr %q", errOut)
	}
}

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
		opts   ImportOptions
		in     string
		target string
		code   int
		err    string
	}{
		{"another distribution, no terminal", ImportOptions{}, "", "", cmdutil.ExitUsage,
			"the tarball holds ubuntu-24.04's index and this machine is debian-12: pass --yes to import it as ubuntu-24.04's index (for machines of that distribution, or a shared server), or --distro debian-12 to use it here"},
		{"--yes", ImportOptions{Yes: true}, "", "cmdai_linux_ubuntu-24.04", 0, ""},
		{"--validate asks nothing", ImportOptions{Validate: true}, "", "cmdai_linux_ubuntu-24.04", 0, ""},
		{"--distro", ImportOptions{Distro: "debian-12"}, "", "cmdai_linux_debian-12", 0, ""},
		{"answered yes", ImportOptions{}, "yes\n", "cmdai_linux_ubuntu-24.04", 0, ""},
		{"answered no", ImportOptions{}, "n\n", "", cmdutil.ExitFailure, "nothing imported"},
		{"download asked for another", ImportOptions{Yes: true, expect: "fedora-40"}, "", "", cmdutil.ExitVerification, "asked for fedora-40's index, but the tarball holds ubuntu-24.04's: the release location is mislabelled"},
	} {
		f, _, errOut := cmdtest.Factory(t, nil)
		if tc.in != "" {
			f.IO.ErrTTY, f.IO.In = true, strings.NewReader(tc.in)
		}
		opts := tc.opts
		opts.Factory, opts.ModelDir = f, dir
		target, err := importCheck(&opts, here)(man)
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
	_, err := importCheck(&ImportOptions{Factory: f, ModelDir: dir, Yes: true}, here)(other)
	if !errors.Is(err, ship.ErrVerification) {
		t.Errorf("another model: %v; want a verification failure", err)
	}
	cmdtest.Code(t, importFailed("x", err), cmdutil.ExitVerification, "the index was built with all-MiniLM-L6-v2 int8 (sha256 0123456789ab")
	_, err = importCheck(&ImportOptions{Factory: f, ModelDir: t.TempDir(), Yes: true}, here)(man)
	cmdtest.Code(t, importFailed("x", err), cmdutil.ExitVerification, "none is installed")
}

func TestDownloadFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *DownloadOptions
	cmd := func() *cli.Command { return NewCmdDownload(f, func(o *DownloadOptions) error { got = o; return nil }) }
	if err := index(t, cmd(), nil, "ubuntu-24.04"); err != nil {
		t.Fatal(err)
	}
	want := DownloadOptions{Import: ImportOptions{Factory: f, Chroma: defaultChroma}, Distro: "ubuntu-24.04", Base: release.DefaultBase, IdleTimeout: netx.DefaultIdleTimeout}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
	env := cmdtest.Env{"CMDAI_RELEASE_URL": "/mirror", "CMDAI_IDLE_TIMEOUT": "1m", "CMDAI_BATCH_MODE": "true", "CMDAI_MODEL_DIR": "/m"}
	if err := index(t, cmd(), env, "debian-12", "--verify", "--allow-unsigned", "--dir", "/dl", "--json", "--public-key", "k.pub"); err != nil {
		t.Fatal(err)
	}
	want = DownloadOptions{Import: ImportOptions{Factory: f, Chroma: defaultChroma, BatchMode: true, ModelDir: "/m", PublicKey: "k.pub"},
		Distro: "debian-12", Base: "/mirror", Dir: "/dl", Verify: true, JSON: true, AllowUnsigned: true, IdleTimeout: time.Minute}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("flags:\n got %+v\nwant %+v", *got, want)
	}
	if err := index(t, cmd(), nil, "--list"); err != nil || !got.List || got.Distro != "" {
		t.Errorf("--list: %+v %v", got, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "say which distribution, e.g. `cmdai index download ubuntu-24.04` (`--list` shows what there is)"},
		{[]string{"--list", "debian-12"}, `--list takes no distribution: unexpected argument "debian-12"`},
		{[]string{"Debian 12"}, `"Debian 12": invalid distribution id`},
		{[]string{"debian-12", "--idle-timeout", "0s"}, "--idle-timeout must be more than 0"},
		{[]string{"debian-12", "fedora-40"}, `unexpected argument "fedora-40"`},
	} {
		got = nil
		cmdtest.Usage(t, index(t, cmd(), nil, tc.args...), tc.want)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
	}
}

// TestDownloadList: --list of a mirror directory, in text and JSON.
func TestDownloadList(t *testing.T) {
	mirror := t.TempDir()
	f, out, _ := cmdtest.Factory(t, nil)
	if err := index(t, NewCmdDownload(f, nil), nil, "--list", "--base-url", mirror); err != nil {
		t.Fatal(err)
	}
	if want := mirror + " offers no indexes\n"; out.String() != want {
		t.Errorf("empty mirror: %q, want %q", out, want)
	}
	out.Reset()
	if err := index(t, NewCmdDownload(f, nil), nil, "--list", "--json", "--base-url", mirror); err != nil {
		t.Fatal(err)
	}
	if want := `{"schema_version":1,"indexes":[]}` + "\n"; out.String() != want {
		t.Errorf("empty mirror, --json: %q, want %q", out, want)
	}
	for _, d := range []string{"ubuntu-24.04", "debian-12"} {
		if err := os.WriteFile(filepath.Join(mirror, release.TarballName(d)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if err := index(t, NewCmdDownload(f, nil), nil, "--list", "--base-url", mirror); err != nil {
		t.Fatal(err)
	}
	if want := "debian-12        chroma-index-debian-12.tar.gz\nubuntu-24.04     chroma-index-ubuntu-24.04.tar.gz\n"; out.String() != want {
		t.Errorf("mirror:\n%q\nwant\n%q", out, want)
	}
	out.Reset()
	err := index(t, NewCmdDownload(f, nil), nil, "--list", "--base-url", filepath.Join(mirror, "none"))
	cmdtest.Code(t, err, cmdutil.ExitFailure, "is not a directory")
}

// TestDownloadMissing: a distribution the mirror does not offer fails
// before anything is imported (no Chroma reached).
func TestDownloadMissing(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var connects int
	f.Connect = cmdtest.Unreachable(&connects)
	err := index(t, NewCmdDownload(f, nil), nil, "fedora-40", "--base-url", t.TempDir(), "--dir", t.TempDir())
	if err == nil || connects != 0 || out.Len() != 0 {
		t.Errorf("%v, %d connections, printed %q", err, connects, out)
	}
	if !strings.Contains(err.Error(), release.TarballName("fedora-40")) {
		t.Errorf("error %q does not name the tarball", err)
	}
}
