package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// Two data homes never share a socket; the default home gets the plain
// name under the runtime directory.
func TestServeSocket(t *testing.T) {
	rt := map[string]string{"HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1000"}
	if got, err := ServeSocket(env(rt)); err != nil || got != "/run/user/1000/cmdai.sock" {
		t.Errorf("default home: %q, %v", got, err)
	}
	a, _ := ServeSocket(env(map[string]string{"HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1000", EnvHome: "/data/a"}))
	b, _ := ServeSocket(env(map[string]string{"HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1000", EnvHome: "/data/b"}))
	if a == b || filepath.Dir(a) != "/run/user/1000" || !strings.HasPrefix(filepath.Base(a), "cmdai-") {
		t.Errorf("two homes: %q and %q; want two names under the runtime dir", a, b)
	}
	if got, _ := ServeSocket(env(map[string]string{"HOME": "/h", EnvHome: "/data/a"})); got != "/data/a/cmdai.sock" {
		t.Errorf("no runtime dir: %q; want it in the data root", got)
	}
	long := "/" + strings.Repeat("x", 120)
	got, _ := ServeSocket(env(map[string]string{"HOME": "/h", EnvHome: long, "TMPDIR": "/t"}))
	if filepath.Dir(got) != "/t" || len(got) > maxSocketPath {
		t.Errorf("a data root too long for a socket: %q", got)
	}
}
