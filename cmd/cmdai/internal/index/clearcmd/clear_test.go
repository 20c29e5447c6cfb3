package clearcmd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
)

// runClearCmd runs `index clear ARGS` with runF capturing the options.
func runClearCmd(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, args ...string) (*ClearOptions, error) {
	t.Helper()
	var got *ClearOptions
	err := cmdtest.Run(t, cmdtest.Index(NewCmdClear(f, func(o *ClearOptions) error { got = o; return nil })), env, append([]string{"index", "clear"}, args...)...)
	return got, err
}

// TestClearFlags: --confirm and its aliases, --all, --distro (or
// CMDAI_DISTRO) reach the options.
func TestClearFlags(t *testing.T) {
	for _, tc := range []struct {
		env  cmdtest.Env
		args []string
		want ClearOptions
	}{
		{nil, []string{"--confirm"}, ClearOptions{Confirm: true}},
		{nil, []string{"--yes", "--all"}, ClearOptions{Confirm: true, All: true}},
		{nil, []string{"-y", "--distro", "fedora-40", "--chroma-url", "http://c:1"}, ClearOptions{Confirm: true, Distro: "fedora-40", Chroma: cmdutil.ChromaOptions{URL: "http://c:1"}}},
		{cmdtest.Env{"CMDAI_DISTRO": "arch"}, []string{"--confirm"}, ClearOptions{Confirm: true, Distro: "arch"}},
		// the variable is a default --all overrides; only the command line's --distro conflicts
		{cmdtest.Env{"CMDAI_DISTRO": "arch"}, []string{"--confirm", "--all"}, ClearOptions{Confirm: true, All: true, Distro: "arch"}},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		got, err := runClearCmd(t, f, tc.env, tc.args...)
		if err != nil || got == nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		tc.want.Factory = f
		tc.want.Chroma.TokenHeader = "Authorization"
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%v:\n got %+v\nwant %+v", tc.args, *got, tc.want)
		}
	}
}

// TestClearRefuses: without a terminal only --confirm deletes, and the
// refusal names what would have been deleted; nothing it does not
// understand may pick what is deleted.
func TestClearRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "index clear deletes this distribution's index: pass --confirm to do it (nothing was deleted)"},
		{[]string{"--all"}, "index clear deletes every cmdai index: pass --confirm"},
		{[]string{"--distro", "fedora-40"}, "index clear deletes fedora-40's index: pass --confirm"},
		{[]string{"--confirm", "--all", "--distro", "arch"}, "--all clears every cmdai index and --distro arch one of them: give one of the two; nothing was deleted"},
		{[]string{"--confirm", "debian-12"}, `unexpected argument "debian-12": cmdai index clear takes no arguments; nothing was deleted (--distro ID clears another distribution's index, --all every cmdai index)`},
		{[]string{"--confirm", "--distro", "Debian 12"}, `--distro: invalid distribution id "Debian 12"`},
		{[]string{"--confirm", "--distro", ""}, "--distro needs a value"},
		{[]string{"--confirm", "--al"}, "unknown flag --al"},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		got, err := runClearCmd(t, f, nil, tc.args...)
		if got != nil {
			t.Errorf("%v: ran", tc.args)
		}
		cmdtest.Usage(t, err, tc.want)
	}
	// a terminal that can answer is asked instead (the run decides)
	f, _, _ := cmdtest.Factory(t, nil)
	f.IO.OutTTY, f.IO.In = true, strings.NewReader("y\n")
	if got, err := runClearCmd(t, f, nil); err != nil || got == nil || got.Confirm {
		t.Errorf("at a terminal: %+v %v; want the run to ask", got, err)
	}
}

// TestClearChromaDown: the real run reaches Chroma for the index to
// delete; a server that does not answer is exit 4, and nothing printed.
func TestClearChromaDown(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	var connects int
	f.Connect = cmdtest.Unreachable(&connects)
	err := cmdtest.Run(t, cmdtest.Index(NewCmdClear(f, nil)), nil, "index", "clear", "--confirm", "--distro", "debian-12")
	cmdtest.Code(t, err, cmdutil.ExitUnreachable, "does not answer")
	if connects != 1 || out.Len() != 0 {
		t.Errorf("%d connections, stdout %q", connects, out)
	}
}
