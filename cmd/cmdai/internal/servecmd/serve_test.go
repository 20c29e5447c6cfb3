package servecmd

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/serve/servelock"
)

// flagEnv are the variables serve's flags read: cleared, so that the
// environment the tests run in does not choose for them.
var flagEnv = []string{"CMDAI_SOCKET", "CMDAI_DISTRO", "CMDAI_MODEL_DIR", "CMDAI_MODEL_VARIANT", "CMDAI_EMBED_BACKEND",
	"CMDAI_CHROMA_URL", "CMDAI_CHROMA_TENANT", "CMDAI_CHROMA_DATABASE", "CMDAI_CHROMA_TOKEN", "CMDAI_CHROMA_TOKEN_HEADER", "CMDAI_CHROMA_BIN", "CMDAI_CHROMA_DATA"}

// runServeCmd runs `cmdai serve args...` as the app does, with runF in
// place of RunServe; it returns the options runF got (nil: not called).
func runServeCmd(t *testing.T, f *cmdutil.Factory, args ...string) (*ServeOptions, error) {
	t.Helper()
	for _, k := range flagEnv {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	var got *ServeOptions
	cmd := NewCmdServe(f, func(_ context.Context, o *ServeOptions) error {
		got = o
		return nil
	})
	app := &cli.App{Name: "cmdai", Commands: []*cli.Command{cmd}, ExitErrHandler: func(*cli.Context, error) {}, OnUsageError: clix.OnUsageError}
	app.Writer, app.ErrWriter = &bytes.Buffer{}, &bytes.Buffer{}
	err := app.Run(append([]string{"cmdai", "serve"}, args...))
	return got, err
}

// TestServeFlags: every flag reaches the options run gets, and without
// flags the defaults are serve's documented ones.
func TestServeFlags(t *testing.T) {
	f := &cmdutil.Factory{}
	o, err := runServeCmd(t, f, "--socket", "/run/x.sock", "--listen", "127.0.0.1:8765", "--idle-timeout", "30m", "--wait", "5s",
		"--distro", "debian-12", "--model-dir", "/m", "--model-variant", "fp32", "--embed-backend", "go",
		"--chroma-url", "http://127.0.0.1:9", "--chroma-data", "/d")
	if err != nil || o == nil {
		t.Fatalf("serve with every flag: %v (ran: %v)", err, o != nil)
	}
	if o.Factory != f || o.Socket != "/run/x.sock" || o.Listen != "127.0.0.1:8765" || o.InsecureNoAuth || o.IdleTimeout != 30*time.Minute || o.Wait != 5*time.Second ||
		o.Distro != "debian-12" || o.Model != (cmdutil.ModelOptions{Dir: "/m", Variant: "fp32", Backend: "go"}) ||
		o.Chroma.URL != "http://127.0.0.1:9" || o.Chroma.DataDir != "/d" || o.Chroma.NoServe {
		t.Errorf("options: %+v", o)
	}
	o, err = runServeCmd(t, f, "--listen", "localhost:1", "--listen-insecure-no-auth")
	if err != nil || o == nil || !o.InsecureNoAuth || o.Listen != "localhost:1" {
		t.Errorf("--listen-insecure-no-auth: %+v %v", o, err)
	}
	o, err = runServeCmd(t, f)
	if err != nil || o == nil {
		t.Fatalf("serve: %v (ran: %v)", err, o != nil)
	}
	if o.Wait != DefaultWait || o.IdleTimeout != 0 || o.Socket != "" || o.Listen != "" || o.Distro != "" || o.Model.Variant != "" || o.Chroma.TokenHeader != "Authorization" {
		t.Errorf("defaults: %+v", o)
	}
}

// TestServeUsageErrors: a bad flag or argument is exit 2, saying what to
// fix, and serve does not run (nothing is started).
func TestServeUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"now"}, `unexpected argument "now": cmdai serve takes no arguments`},
		{[]string{"--distro", "a b"}, `--distro: invalid distribution id "a b"`},
		{[]string{"--model-variant", "fp16"}, `--model-variant "fp16": use int8 or fp32`},
		{[]string{"--embed-backend", "cuda"}, `--embed-backend "cuda": use ort or go`},
		{[]string{"--idle-timeout", "-1s"}, "--idle-timeout must be 0 (never) or more, not -1s"},
		{[]string{"--wait", "-1s"}, "--wait must be 0 (do not wait) or more, not -1s"},
		{[]string{"--wait", "soon"}, "soon"},
		{[]string{"--listen-insecure-no-auth"}, "--listen-insecure-no-auth goes with --listen ADDR"},
		{[]string{"--listen", "0.0.0.0:8765"}, "only a loopback address is allowed"},
		{[]string{"--listen", "127.0.0.1"}, "use 127.0.0.1:PORT"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
	} {
		o, err := runServeCmd(t, &cmdutil.Factory{}, c.args...)
		if o != nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: ran %v, exit %d, %v; want exit 2 saying %q", c.args, o != nil, cmdutil.ExitCode(err), err, c.want)
		}
	}
}

// testFactory is a Factory over a fresh data home, its stderr in a buffer.
func testFactory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"CMDAI_HOME": home, "XDG_RUNTIME_DIR": home}
	errOut := &bytes.Buffer{}
	return cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: errOut}, func(k string) string { return env[k] }, ""), errOut
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestSecondServeExits6: a serve on a data home whose socket another
// serve holds exits 6 at once, before it reaches Chroma (here one that
// does not answer: reaching it would be exit 4).
func TestSecondServeExits6(t *testing.T) {
	f, _ := testFactory(t)
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	l, err := servelock.Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	err = RunServe(context.Background(), &ServeOptions{Factory: f, Socket: socket, Distro: "debian-12", Chroma: cmdutil.ChromaOptions{URL: "http://" + closedPort(t)}})
	if cmdutil.ExitCode(err) != cmdutil.ExitBusy || !strings.Contains(err.Error(), "another cmdai serve is running") {
		t.Errorf("second serve: exit %d %v; want 6 saying another serve runs", cmdutil.ExitCode(err), err)
	}
}

// TestServePortInUse: a --listen port in use fails before Chroma is
// reached or the token made.
func TestServePortInUse(t *testing.T) {
	f, _ := testFactory(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	err = RunServe(context.Background(), &ServeOptions{Factory: f, Socket: socket, Listen: busy.Addr().String(), Distro: "debian-12", Chroma: cmdutil.ChromaOptions{URL: "http://" + closedPort(t)}})
	if cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("port in use: exit %d %v; want 1 saying the address is in use", cmdutil.ExitCode(err), err)
	}
	if _, err := os.Stat(filepath.Join(f.Getenv("CMDAI_HOME"), "serve.token")); !os.IsNotExist(err) {
		t.Errorf("a port in use made a token: %v", err)
	}
}

// TestServeChromaErrorFirst: serve that cannot reach Chroma and has no
// model exits with Chroma's error (exit 4), not the model's: it would
// start degraded with a model, but it has nothing to answer with here.
func TestServeChromaErrorFirst(t *testing.T) {
	f, errOut := testFactory(t)
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	addr := closedPort(t)
	err := RunServe(context.Background(), &ServeOptions{Factory: f, Socket: socket, Distro: "debian-12",
		Chroma: cmdutil.ChromaOptions{URL: "http://" + addr}, Model: cmdutil.ModelOptions{Dir: t.TempDir(), Backend: "go"}})
	if cmdutil.ExitCode(err) != cmdutil.ExitUnreachable || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "drop --chroma-url") {
		t.Errorf("no Chroma, no model: exit %d %v; want 4 with Chroma's error and its fix", cmdutil.ExitCode(err), err)
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("serve listened without an index to answer from: %v\n%s", err, errOut)
	}
}

// TestListenToken: --listen makes the token on first use, mode 0600,
// and shows it once; later starts point at the file; the opt-out warns
// and asks none.
func TestListenToken(t *testing.T) {
	f, _ := testFactory(t)
	var log []string
	logf := func(format string, a ...any) {
		log = append(log, strings.TrimSpace(strings.ReplaceAll(format, "%s", "_")))
	}
	opts := &ServeOptions{Factory: f, Listen: "127.0.0.1:8765"}
	tok, err := listenToken(opts, logf)
	path := filepath.Join(f.Getenv("CMDAI_HOME"), "serve.token")
	fi, serr := os.Stat(path)
	if err != nil || tok == "" || serr != nil || fi.Mode().Perm() != 0o600 || len(log) != 1 || !strings.HasPrefix(log[0], "made the token") {
		t.Fatalf("first use: %q %v, file %v %v, log %q", tok, err, fi, serr, log)
	}
	again, err := listenToken(opts, logf)
	if err != nil || again != tok || len(log) != 2 || !strings.HasPrefix(log[1], "--listen clients send the token kept in") {
		t.Errorf("second use: %q %v, log %q; want the same token, pointed at", again, err, log)
	}
	opts.InsecureNoAuth = true
	if none, err := listenToken(opts, logf); err != nil || none != "" || len(log) != 3 || !strings.HasPrefix(log[2], "WARNING: --listen-insecure-no-auth") {
		t.Errorf("opt-out: %q %v, log %q; want no token and a warning", none, err, log)
	}
}
