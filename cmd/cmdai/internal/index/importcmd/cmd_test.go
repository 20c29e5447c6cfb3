package importcmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
)

// index runs `index ARGS` with cmd under the group, as cmdai does.
func index(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
}

var defaultChroma = cmdutil.ChromaOptions{TokenHeader: "Authorization"}

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
// A tarball no verified signature vouches for is refused (exit 5) unless
// --allow-unsigned (issue 45, finding 5), before anything is read.
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
	cmdtest.Code(t, index(t, NewCmdImport(f, nil), nil, junk), cmdutil.ExitVerification, "pass --allow-unsigned")
	if errOut.Len() != 0 {
		t.Errorf("refused unsigned: stderr %q", errOut)
	}
	err := index(t, NewCmdImport(f, nil), nil, junk, "--allow-unsigned")
	cmdtest.Code(t, err, cmdutil.ExitVerification, "the previous index is unchanged")
	if connects != 0 || out.Len() != 0 {
		t.Errorf("%d connections, printed %q", connects, out)
	}
	if want := "note: no chroma-index-debian-12.tar.gz.sha256 or checksums.txt beside " + junk + ": only the checksums inside the tarball are checked\n"; !strings.Contains(errOut.String(), want) || !strings.Contains(errOut.String(), "warning: importing "+junk+" unsigned") {
		t.Errorf("stderr %q; want %q", errOut, want)
	}
	// --json keeps stderr for errors
	errOut.Reset()
	cmdtest.Code(t, index(t, NewCmdImport(f, nil), nil, junk, "--json", "--allow-unsigned"), cmdutil.ExitVerification, "unchanged")
	if errOut.Len() != 0 {
		t.Errorf("--json: stderr %q", errOut)
	}
}
