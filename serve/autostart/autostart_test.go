package autostart

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/serve/servelock"
)

func TestUnwelcome(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		getenv func(string) string
		batch  bool
		want   string
	}{
		{env("HOME", "/h"), false, ""},
		{env("XDG_RUNTIME_DIR", "/run/user/1"), false, ""},
		{env("HOME", "/h", "CI", "true"), false, "CI is set"},
		{env("HOME", "/h", "CI", "1"), false, "CI is set"},
		{env("HOME", "/h", "CI", "false"), false, ""},
		{env("HOME", "/h"), true, "--batch-mode"},
		{env(), false, "neither $HOME nor $XDG_RUNTIME_DIR is set"},
	} {
		if got := Unwelcome(c.getenv, c.batch); got != c.want {
			t.Errorf("Unwelcome(batch %v) = %q, want %q", c.batch, got, c.want)
		}
	}
}

// TestStart starts a real detached process (sh) as the serve, its
// output appended to the log; a lock already held is ErrRunning; a big
// log is moved aside first.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	socket, log := filepath.Join(dir, "run", "cmdai.sock"), filepath.Join(dir, "cache", "serve.log")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, bytes.Repeat([]byte("x"), maxLog+1), 0o600); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := Start(Spec{Exe: sh, Args: []string{"-c", "echo started $$; ps -o sid= -p $$"}, Socket: socket, Log: log})
	if err != nil || pid <= 0 {
		t.Fatalf("Start: %d %v", pid, err)
	}
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(log)
		if got = string(b); strings.Count(got, "\n") >= 2 {
			break
		}
	}
	// its own session: its session id is its pid
	if f := strings.Fields(got); len(f) != 3 || f[0] != "started" || f[1] != f[2] {
		t.Errorf("log %q: want \"started PID\" and its session id, the same", got)
	}
	if st, err := os.Stat(log + ".1"); err != nil || st.Size() != maxLog+1 {
		t.Errorf("the big log was not moved aside: %v", err)
	}

	lock, err := servelock.Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if _, err := Start(Spec{Exe: sh, Args: []string{"-c", "exit 0"}, Socket: socket, Log: log}); !errors.Is(err, ErrRunning) {
		t.Errorf("with the lock held: %v, want ErrRunning", err)
	}
}

func TestStartUnwritableSocketDir(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes anywhere but a read-only filesystem: /proc is one
		_, err := Start(Spec{Exe: "/bin/true", Socket: "/proc/cmdai.sock", Log: filepath.Join(t.TempDir(), "serve.log")})
		if err == nil || !strings.Contains(err.Error(), "cannot make its socket in /proc") {
			t.Errorf("socket in /proc: %v", err)
		}
		return
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	_, err := Start(Spec{Exe: "/bin/true", Socket: filepath.Join(dir, "cmdai.sock"), Log: filepath.Join(t.TempDir(), "serve.log")})
	if err == nil || !strings.Contains(err.Error(), "cannot make its socket") {
		t.Errorf("read-only socket directory: %v", err)
	}
}

// Another user's socket or lock file where ours goes: the background
// serve is not started (it could not take them), and the reason says
// whose they are and what to do.
func TestStartOverAnotherUsersFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test gives a file to another user: run it as root (make test does)")
	}
	for _, name := range []string{"cmdai.sock", "cmdai.sock.lock"} {
		dir := t.TempDir()
		socket := filepath.Join(dir, "cmdai.sock")
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(filepath.Join(dir, name), 4321, 4321); err != nil {
			t.Fatal(err)
		}
		_, err := Start(Spec{Exe: "/bin/true", Socket: socket, Log: filepath.Join(t.TempDir(), "serve.log")})
		if err == nil || !strings.Contains(err.Error(), "serve cannot use its socket") || !strings.Contains(err.Error(), "belongs to uid 4321") {
			t.Errorf("another user's %s: %v", name, err)
		}
	}
}
