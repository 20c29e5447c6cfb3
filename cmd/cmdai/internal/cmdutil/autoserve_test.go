package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/autostart"
)

// autoFactory is a Factory with env, no serve running, and a StartServe
// that records its calls and answers pid 4242 (or err).
func autoFactory(env map[string]string, err error) (*Factory, *[]string, *bytes.Buffer) {
	errOut := &bytes.Buffer{}
	f := NewFactory(&IOStreams{Out: &bytes.Buffer{}, ErrOut: errOut}, func(k string) string { return env[k] }, "test")
	f.ServeClient = func(context.Context) (*serve.Client, bool) { return nil, false }
	var calls []string
	f.StartServe = func(idle time.Duration, distroID string) (int, error) {
		calls = append(calls, idle.String()+" "+distroID)
		return 4242, err
	}
	return f, &calls, errOut
}

// autoFlags parses args as a read command's auto-serve flags would be,
// env giving their variables.
func autoFlags(t *testing.T, env map[string]string, args ...string) AutoServeOptions {
	t.Helper()
	// the flags read the real environment: none of theirs but env's
	// (`make test` sets CMDAI_AUTO_SERVE=false for its scripts)
	for _, k := range []string{"CMDAI_AUTO_SERVE", "CMDAI_AUTO_SERVE_IDLE"} {
		if v, ok := os.LookupEnv(k); ok {
			os.Unsetenv(k)
			t.Cleanup(func() { os.Setenv(k, v) })
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	var o AutoServeOptions
	app := &cli.App{Flags: AutoServeFlags(&o), Action: func(*cli.Context) error { return nil }}
	if err := app.Run(append([]string{"cmdai"}, args...)); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestAutoServeStartsAfterALoneAnswer(t *testing.T) {
	home := map[string]string{"HOME": "/home/u"}
	for _, c := range []struct {
		name  string
		env   map[string]string
		flags map[string]string // CMDAI_* variables
		args  []string
		batch bool
		local bool
		want  string // StartServe's call; "" none
	}{
		{"default", home, nil, nil, false, false, "5m0s "},
		{"idle and distro", home, nil, []string{"--auto-serve-idle", "90s"}, false, false, "1m30s "},
		{"--auto-serve=false", home, nil, []string{"--auto-serve=false"}, false, false, ""},
		{"CMDAI_AUTO_SERVE=false", home, map[string]string{"CMDAI_AUTO_SERVE": "false"}, nil, false, false, ""},
		{"CI=true", map[string]string{"HOME": "/home/u", "CI": "true"}, nil, nil, false, false, ""},
		{"CI=true, asked for", map[string]string{"HOME": "/home/u", "CI": "true"}, map[string]string{"CMDAI_AUTO_SERVE": "true"}, nil, false, false, "5m0s "},
		{"--batch-mode", home, nil, nil, true, false, ""},
		{"no HOME, no runtime dir", map[string]string{}, nil, nil, false, false, ""},
		{"a runtime dir only", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1"}, nil, nil, false, false, "5m0s "},
		{"local (--no-serve, another Chroma or model)", home, nil, nil, false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, calls, _ := autoFactory(c.env, nil)
			f.Batch = c.batch
			o := autoFlags(t, c.flags, c.args...)
			a := f.ServeOrHere(&here{}, c.local, o)
			if _, err := a.Query(context.Background(), answer.QueryRequest{Request: "list files", K: 3}); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(*calls, "|")
			if got != c.want {
				t.Errorf("StartServe calls %q, want %q (off because: %q)", got, c.want, f.AutoServeOff(o))
			}
			if (c.want != "") != (a.Started == 4242) {
				t.Errorf("Started %d", a.Started)
			}
		})
	}
}

func TestAutoServeDistroAndFailures(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	o := autoFlags(t, nil)
	f, calls, _ := autoFactory(env, nil)
	a := f.ServeOrHere(&here{}, false, o.For("debian-12"))
	a.Explain(context.Background(), answer.ExplainRequest{Line: "ls -l"})
	if got := strings.Join(*calls, "|"); got != "5m0s debian-12" {
		t.Errorf("explain --distro debian-12 started %q", got)
	}

	// a status without this distribution's index starts nothing: a
	// serve would have nothing to hold
	f, calls, _ = autoFactory(env, nil)
	a = f.ServeOrHere(&here{}, false, o)
	a.Status(context.Background(), answer.StatusRequest{})
	if len(*calls) != 0 {
		t.Errorf("status with no index started a serve: %q", *calls)
	}

	// one already running: quiet; failing: a warning, and the answer
	f, _, errOut := autoFactory(env, autostart.ErrRunning)
	a = f.ServeOrHere(&here{}, false, o)
	if res, err := a.Query(context.Background(), answer.QueryRequest{Request: "x", K: 1}); err != nil || res.Collection != "here" || errOut.Len() != 0 {
		t.Errorf("with a serve starting elsewhere: %+v %v %q", res, err, errOut)
	}
	f, _, errOut = autoFactory(env, errors.New("socket directory not writable"))
	a = f.ServeOrHere(&here{}, false, o)
	if res, err := a.Query(context.Background(), answer.QueryRequest{Request: "x", K: 1}); err != nil || res.Collection != "here" {
		t.Errorf("a serve that cannot start cost the answer: %+v %v", res, err)
	}
	if !strings.Contains(errOut.String(), "could not start cmdai serve in the background: socket directory not writable") || !strings.Contains(errOut.String(), "--auto-serve=false") {
		t.Errorf("warning: %q", errOut)
	}
}

// Where no serve could make its socket (a read-only filesystem, issue
// #33's faults), status and doctor say so instead of promising that the
// next read starts one.
func TestServeStateWithoutASocketDirectory(t *testing.T) {
	rt := t.TempDir()
	if os.Geteuid() == 0 {
		rt = "/proc" // root writes anywhere but a read-only filesystem
	} else if err := os.Chmod(rt, 0o500); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		runtime, want string
	}{
		{t.TempDir(), "none runs; the next read command starts one in the background"},
		{rt, "none runs; read commands answer one-shot: serve cannot make its socket in " + rt},
	} {
		env := map[string]string{"HOME": t.TempDir(), "XDG_RUNTIME_DIR": c.runtime}
		f, _, _ := autoFactory(env, nil)
		if got := f.ServeState(context.Background(), autoFlags(t, env)); !strings.HasPrefix(got, c.want) {
			t.Errorf("XDG_RUNTIME_DIR=%s: %q, want it to start %q", c.runtime, got, c.want)
		}
	}
}

// TestForWriter (issue 46): a command that writes an index starts the
// background serve where a read command would (so that the first answer
// after it is warm), and follows the same setting: off by
// CMDAI_AUTO_SERVE=false, under CI and under its own --batch-mode, on
// under CI when the variable asks for it; its idle time too.
func TestForWriter(t *testing.T) {
	for _, c := range []struct {
		env   map[string]string
		batch bool
		off   string
		idle  time.Duration
	}{
		{env: map[string]string{"HOME": "/h"}, idle: DefaultAutoServeIdle},
		{env: map[string]string{"HOME": "/h", "CMDAI_AUTO_SERVE_IDLE": "1m"}, idle: time.Minute},
		{env: map[string]string{"HOME": "/h", "CMDAI_AUTO_SERVE": "false"}, off: "auto-serve is off"},
		{env: map[string]string{"HOME": "/h", "CMDAI_AUTO_SERVE": "maybe"}, off: "auto-serve is off"},
		{env: map[string]string{"HOME": "/h", "CI": "true"}, off: "CI is set"},
		{env: map[string]string{"HOME": "/h", "CI": "true", "CMDAI_AUTO_SERVE": "true"}, idle: DefaultAutoServeIdle},
		{env: map[string]string{"HOME": "/h", "CMDAI_AUTO_SERVE": "true"}, batch: true, off: "auto-serve is off"},
	} {
		f, calls, _ := autoFactory(c.env, nil)
		o := f.ForWriter(c.batch)
		if got := f.AutoServeOff(o); got != c.off {
			t.Errorf("%v batch %v: off %q, want %q", c.env, c.batch, got, c.off)
			continue
		}
		start := f.AutoStart(o)
		if (start == nil) != (c.off != "") {
			t.Errorf("%v batch %v: AutoStart %v", c.env, c.batch, start != nil)
			continue
		}
		if start != nil {
			if pid := start(); pid != 4242 || len(*calls) != 1 || (*calls)[0] != c.idle.String()+" " {
				t.Errorf("%v: pid %d, calls %q, want idle %s", c.env, pid, *calls, c.idle)
			}
		}
	}
}
