package exportcmd

import (
	"os"
	"reflect"
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
