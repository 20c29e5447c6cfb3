package downloadcmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/tarimport"
	"github.com/cmdai/cmdai/internal/netx"
	"github.com/cmdai/cmdai/ship/release"
)

// index runs `index ARGS` with cmd under the group, as cmdai does.
func index(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
}

var defaultChroma = cmdutil.ChromaOptions{TokenHeader: "Authorization"}

func TestDownloadFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *DownloadOptions
	cmd := func() *cli.Command { return NewCmdDownload(f, func(o *DownloadOptions) error { got = o; return nil }) }
	if err := index(t, cmd(), nil, "ubuntu-24.04"); err != nil {
		t.Fatal(err)
	}
	want := DownloadOptions{Import: tarimport.Options{Factory: f, Chroma: defaultChroma}, Distro: "ubuntu-24.04", Base: release.DefaultBase, IdleTimeout: netx.DefaultIdleTimeout}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
	env := cmdtest.Env{"CMDAI_RELEASE_URL": "/mirror", "CMDAI_IDLE_TIMEOUT": "1m", "CMDAI_BATCH_MODE": "true", "CMDAI_MODEL_DIR": "/m"}
	if err := index(t, cmd(), env, "debian-12", "--verify", "--allow-unsigned", "--dir", "/dl", "--json", "--public-key", "k.pub"); err != nil {
		t.Fatal(err)
	}
	want = DownloadOptions{Import: tarimport.Options{Factory: f, Chroma: defaultChroma, BatchMode: true, ModelDir: "/m", PublicKey: "k.pub"},
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
