package helprun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

// script makes a made-up command that runs the shell commands of body: a
// native executable (helpfixture), since a local #! script is refused.
// The help tests do not run in parallel: forking while another goroutine
// holds a fixture open for writing makes exec fail with "text file busy".
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	return helpfixture.Write(t, dir, name, body)
}

func TestMain(m *testing.M) {
	helpfixture.Main()
	os.Exit(m.Run())
}

func needShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell-script fixtures need a POSIX system")
	}
}

func TestHelpUsableDespiteExitStatus(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "tool", "echo 'Usage: tool [-v] FILE'\necho '  -v  verbose'\nexit 2\n")
	res, err := Runner{}.Exec(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Output), "Usage: tool") || res.ExitCode != 2 || res.FromStderr || res.Truncated {
		t.Errorf("Exec = %+v", res)
	}
}

func TestHelpFromStderr(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "tool", "echo 'usage: tool' >&2\nexit 1\n")
	res, err := Runner{}.Exec(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != "usage: tool\n" || !res.FromStderr {
		t.Errorf("Exec = %+v", res)
	}
	// Stdout is preferred when both have something.
	p = script(t, t.TempDir(), "both", "echo noise >&2\necho 'usage: both'\n")
	if out, err := (Runner{}).Run(context.Background(), p); err != nil || string(out) != "usage: both\n" {
		t.Errorf("Run(both) = %q, %v", out, err)
	}
}

func TestHelpNoOutput(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "quiet", "exit 0\n")
	if _, err := (Runner{}).Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), "printed nothing") {
		t.Errorf("Run(quiet) error = %v", err)
	}
	if _, err := (Runner{}).Run(context.Background(), filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("Run(absent) succeeded")
	}
}

func TestHelpTimeoutKillsGroup(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	// The background sleep keeps the pipes open: only killing the
	// whole process group lets Run return promptly.
	p := script(t, dir, "hang", "echo starting\nsleep 30 &\nsleep 30\n")
	start := time.Now()
	_, err := Runner{Timeout: 300 * time.Millisecond}.Run(context.Background(), p)
	if el := time.Since(start); el > 10*time.Second { // a bound: it would hang for 30 s
		t.Errorf("Run took %v with a 300ms timeout", el)
	}
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("Run(hang) error = %v, want a timeout", err)
	}
}

func TestHelpCancelled(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "hang", "sleep 30\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := (Runner{Timeout: time.Minute}).Run(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run with a cancelled context: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second { // a bound: it would hang for 30 s
		t.Errorf("Run took %v after cancellation", el)
	}
}

func TestHelpStdinIsEmpty(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "reader", "if read line; then echo \"read: $line\"; else echo 'usage: got EOF'; fi\n")
	start := time.Now()
	out, err := Runner{Timeout: 5 * time.Second}.Run(context.Background(), p)
	if err != nil || string(out) != "usage: got EOF\n" {
		t.Errorf("Run(reader) = %q, %v", out, err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("reading stdin took %v; it should get EOF at once", el)
	}
}

func TestHelpNoTerminal(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "ttycheck", `for fd in 0 1 2; do if [ -t $fd ]; then echo "fd$fd is a tty"; fi; done
if (exec 3</dev/tty) 2>/dev/null; then echo "has a controlling tty"; fi
tty || true
echo usage: ttycheck
`)
	out, err := Runner{}.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "is a tty") || strings.Contains(s, "controlling tty") {
		t.Errorf("the command saw a terminal:\n%s", s)
	}
	if !strings.Contains(s, "not a tty") || !strings.Contains(s, "usage: ttycheck") {
		t.Errorf("unexpected output:\n%s", s)
	}
}

func TestHelpMinimalEnv(t *testing.T) {
	needShell(t)
	t.Setenv("SECRET", "hunter2")
	p := script(t, t.TempDir(), "envdump", `echo "HOME=$HOME"
echo "SECRET=$SECRET"
echo "PWD=$(pwd)"
env | sort
test -d "$HOME" && test -w "$HOME" && echo "home writable"
`)
	out, err := Runner{}.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "hunter2") {
		t.Errorf("SECRET leaked into the command's environment:\n%s", s)
	}
	for _, want := range []string{"PATH=/usr/bin:/bin\n", "LANG=C\n", "LC_ALL=C\n", "TERM=dumb\n", "COLUMNS=100\n", "home writable"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	var home string
	for _, line := range strings.Split(s, "\n") {
		if h, ok := strings.CutPrefix(line, "HOME="); ok {
			home = h
		}
	}
	if real, _ := os.UserHomeDir(); home == "" || home == real {
		t.Errorf("HOME = %q, want a fresh temporary directory", home)
	}
	if !strings.Contains(s, "PWD="+home) {
		t.Errorf("working directory is not the temporary HOME:\n%s", s)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("temporary HOME %s left behind (%v)", home, err)
	}
}

func TestHelpOutputCapped(t *testing.T) {
	needShell(t)
	p := script(t, t.TempDir(), "chatty", "exec /usr/bin/yes 'usage: chatty, over and over'\n")
	start := time.Now()
	res, err := Runner{MaxOutput: 64 << 10, Timeout: time.Minute}.Exec(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) != 64<<10 || !res.Truncated {
		t.Errorf("got %d bytes, truncated=%v; want 64 KiB, truncated", len(res.Output), res.Truncated)
	}
	if !bytes.HasPrefix(res.Output, []byte("usage: chatty")) {
		t.Errorf("output starts %q", res.Output[:40])
	}
	if el := time.Since(start); el > 10*time.Second { // a bound: without the kill it runs until the minute's timeout
		t.Errorf("capped run took %v; it should be killed once the cap is hit", el)
	}
}

func TestHelpDenied(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	body := "touch " + marker + "\necho usage\n"
	harmless := script(t, dir, "harmless", body)
	cases := []struct {
		path string
		h    Runner
	}{
		{script(t, dir, "mkfs.ext4", body), Runner{}},
		{script(t, dir, "reboot", body), Runner{}},
		{script(t, dir, "systemd-reboot-helper", body), Runner{}},
		{script(t, dir, "pm-suspend", body), Runner{}},
		{script(t, dir, "custom-danger", body), Runner{Deny: []string{"custom-*"}}},
		{harmless, Runner{Deny: []string{dir + "/harm*"}}}, // full-path pattern
	}
	// A harmless name that links to a denied binary: multi-call programs
	// act on what they are, not what they are called.
	link := filepath.Join(dir, "innocent")
	if err := os.Symlink(filepath.Join(dir, "reboot"), link); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		path string
		h    Runner
	}{link, Runner{}})

	for _, tc := range cases {
		_, err := tc.h.Run(context.Background(), tc.path)
		if !errors.Is(err, ErrDenied) {
			t.Errorf("Run(%s) error = %v, want ErrDenied", filepath.Base(tc.path), err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a denied command was run")
	}
	if out, err := (Runner{}).Run(context.Background(), harmless); err != nil || string(out) != "usage\n" {
		t.Errorf("Run(harmless) = %q, %v", out, err)
	}
}

func TestIsDenied(t *testing.T) {
	for name, want := range map[string]bool{
		"reboot": true, "/sbin/shutdown": true, "mkfs": true, "mkfs.ext4": true, "mkfs.vfat": true,
		"dd": true, "rm": true, "yes": true, "halt": true, "pm-hibernate": true, "kexec-reboot": true,
		"sh": true, "bash": true, "dash": true, "zsh": true, "python3": true, "python3.11": true, "perl": true,
		"ruby": true, "node": true, "busybox": true, "poweroff-now": true, "halt-all": true, "systemd": true,
		"ls": false, "grep": false, "mkdir": false, "add": false, "ipcs": false, "ssh": false, "shred-not": false, "gofmt": false,
	} {
		if got := IsDenied(name); got != want {
			t.Errorf("IsDenied(%q) = %v, want %v", name, got, want)
		}
	}
}
