package main

import (
	"context"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// TestClearDeletesOnlyWhatItIsTold: on a real Chroma holding an index,
// clear with a stray argument, an empty --distro, --all with --distro, or
// a distribution that has no index refuses and deletes nothing; only the
// plain call deletes it.
func TestClearDeletesOnlyWhatItIsTold(t *testing.T) {
	realEnv(t)
	srvURL := startRemote(t)
	ctx := context.Background()
	st, err := chroma.Connect(ctx, chroma.Config{URL: srvURL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const mine, other = "cmdai_linux_debian-12", "cmdai_linux_ubuntu-24.04"
	for _, name := range []string{mine, other} {
		if _, err := st.CreateCollection(ctx, name, map[string]any{"distro": name}); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool {
		t.Helper()
		_, err := st.OpenCollection(ctx, name)
		return err == nil
	}
	url := "--chroma-url=" + srvURL
	t.Setenv("CMDAI_DISTRO", "debian-12") // this machine, as far as clear knows
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"index", "clear", "cmdai_linux_ubuntu-24.04", "--confirm", url}, cmdutil.ExitUsage, `unexpected argument "cmdai_linux_ubuntu-24.04"`},
		{[]string{"index", "clear", "other-name", "--confirm", url}, cmdutil.ExitUsage, "nothing was deleted"},
		{[]string{"index", "clear", "--distro", "", "--confirm", url}, cmdutil.ExitUsage, "--distro needs a value"},
		{[]string{"index", "clear", "--all", "--distro", "ubuntu-24.04", "--confirm", url}, cmdutil.ExitUsage, "--all"},
		{[]string{"index", "clear", "--distro", "arch", "--confirm", url}, cmdutil.ExitNoIndex, "no index cmdai_linux_arch"},
		{[]string{"index", "clear", url}, cmdutil.ExitUsage, "pass --confirm"},
		{[]string{"index", "clear", "--all", url}, cmdutil.ExitUsage, "every cmdai index: pass --confirm"},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Contains(out, "deleted") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
		if !exists(mine) || !exists(other) {
			t.Fatalf("%q deleted an index", tc.args)
		}
	}
	// The call it understands does delete, and only that index.
	code, out, errOut := runCLI(t, "index", "clear", "--confirm", url)
	if code != 0 || !strings.Contains(out, "deleted "+mine) || exists(mine) || !exists(other) {
		t.Errorf("clear: exit %d %s %s; %s exists %v, %s exists %v", code, out, errOut, mine, exists(mine), other, exists(other))
	}
}
