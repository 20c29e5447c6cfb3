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
	"github.com/cmdai/cmdai/internal/netwait"
	"github.com/cmdai/cmdai/ship/release"
)

// index runs `index ARGS` with cmd under the group, as cmdai does.
func index(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
}

var defaultChroma = cmdutil.ChromaOptions{TokenHeader: "Authorization"}

func TestDownloadFlags(t *testing.T) {
	f, _, errOut := cmdtest.Factory(t, nil)
	var got *DownloadOptions
	cmd := func() *cli.Command { return NewCmdDownload(f, func(o *DownloadOptions) error { got = o; return nil }) }
	if err := index(t, cmd(), nil, "ubuntu-24.04"); err != nil {
		t.Fatal(err)
	}
	want := DownloadOptions{Import: tarimport.Options{Factory: f, Chroma: defaultChroma}, Distro: "ubuntu-24.04", Base: release.DefaultBase, IdleTimeout: netwait.DefaultIdleTimeout}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
	want = DownloadOptions{Import: tarimport.Options{Factory: f, Chroma: defaultChroma, BatchMode: true, ModelDir: "/m", PublicKey: "k.pub"},
		Distro: "debian-12", Base: "/mirror", Dir: "/dl", Verify: true, JSON: true, AllowUnsigned: true, IdleTimeout: time.Minute}
	// the names of today, then the old spellings (--verify, --idle-timeout
	// and CMDAI_IDLE_TIMEOUT): the same options, and a note for each
	for _, tc := range []struct {
		env  cmdtest.Env
		args []string
		note []string
	}{
		{cmdtest.Env{"CMDAI_STALL_TIMEOUT": "1m"}, []string{"--validate"}, nil},
		{nil, []string{"--validate", "--stall-timeout", "1m"}, nil},
		{cmdtest.Env{"CMDAI_IDLE_TIMEOUT": "1m"}, []string{"--verify"}, []string{"--verify is deprecated: use --validate", "CMDAI_IDLE_TIMEOUT"}},
		{nil, []string{"--idle-timeout", "1m", "--validate"}, []string{"--idle-timeout (CMDAI_IDLE_TIMEOUT, config key idle-timeout) is deprecated: use --stall-timeout"}},
		{cmdtest.Env{"CMDAI_IDLE_TIMEOUT": "5m", "CMDAI_STALL_TIMEOUT": "1m"}, []string{"--validate"}, nil},
	} {
		errOut.Reset()
		env := cmdtest.Env{"CMDAI_RELEASE_URL": "/mirror", "CMDAI_BATCH_MODE": "true", "CMDAI_MODEL_DIR": "/m"}
		for k, v := range tc.env {
			env[k] = v
		}
		args := append([]string{"debian-12", "--allow-unsigned", "--dir", "/dl", "--json", "--public-key", "k.pub"}, tc.args...)
		if err := index(t, cmd(), env, args...); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%v %v:\n got %+v\nwant %+v", tc.env, tc.args, *got, want)
		}
		for _, n := range tc.note {
			if !strings.Contains(errOut.String(), n) {
				t.Errorf("%v %v: no note %q on stderr: %q", tc.env, tc.args, n, errOut)
			}
		}
		if tc.note == nil && errOut.Len() > 0 {
			t.Errorf("%v %v: a note on stderr: %q", tc.env, tc.args, errOut)
		}
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
		{[]string{"debian-12", "--stall-timeout", "0s"}, "--stall-timeout must be more than 0"},
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
