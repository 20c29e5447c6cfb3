// Package cmdtest runs one cmdai command the way the app does (its flags,
// environment variables, usage errors), against buffers and fakes: what
// the command packages' unit tests share. Nothing here reaches Chroma,
// the model, a running serve or the machine's distribution unless a test
// puts a fake in the Factory for it.
package cmdtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/serve"
)

// Detected is the distribution the Factory's DetectDistro says this
// machine runs.
const Detected = "debian-12"

// Env is a test's environment: what Getenv and the flags' environment
// variables read.
type Env map[string]string

// Factory is a Factory for a unit test. Its terminal is buffers (not a
// terminal, no stdin); Getenv reads env, with CMDAI_HOME a fresh
// directory unless env names one; DetectDistro says Detected. Connect,
// Embedder and ServeClient fail the test when called: a test that means
// the command to reach them replaces them with a fake.
func Factory(t *testing.T, env Env) (f *cmdutil.Factory, out, errOut *bytes.Buffer) {
	t.Helper()
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	e := Env{"CMDAI_HOME": t.TempDir()}
	for k, v := range env {
		e[k] = v
	}
	f = cmdutil.NewFactory(&cmdutil.IOStreams{Out: out, ErrOut: errOut}, func(k string) string { return e[k] }, "test")
	f.Connect = func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) {
		t.Errorf("the command connected to Chroma; the test did not expect it")
		return nil, errors.New("cmdtest: no Chroma in a unit test")
	}
	f.Embedder = func(context.Context, cmdutil.ModelOptions, int) (embed.Embedder, error) {
		t.Errorf("the command opened the model; the test did not expect it")
		return nil, errors.New("cmdtest: no model in a unit test")
	}
	f.ServeClient = func(context.Context) (*serve.Client, bool) { return nil, false }
	f.StartServe = func(time.Duration, string) (int, error) {
		t.Errorf("the command started a serve in the background; the test did not expect it")
		return 0, errors.New("cmdtest: no background serve in a unit test")
	}
	f.DetectDistro = func(context.Context) (distro.Info, error) { return distro.Parse(Detected) }
	return f, out, errOut
}

// Unreachable is a Connect that fails as a Chroma server that does not
// answer does (exit 4), and counts its calls.
func Unreachable(calls *int) func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) {
	return func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) {
		*calls++
		return nil, cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("chroma at http://127.0.0.1:1 does not answer"))
	}
}

// NoModel is an Embedder that fails as a missing model does (exit 5), and
// counts its calls.
func NoModel(calls *int) func(context.Context, cmdutil.ModelOptions, int) (embed.Embedder, error) {
	return func(context.Context, cmdutil.ModelOptions, int) (embed.Embedder, error) {
		*calls++
		return nil, cmdutil.WithCode(cmdutil.ExitVerification, embed.ErrNoModel)
	}
}

// Index puts cmd under the `index` group, as cmdai's tree does, so that
// its usage errors and help name it `cmdai index NAME`.
func Index(cmd *cli.Command) *cli.Command {
	return &cli.Command{Name: "index", Subcommands: []*cli.Command{cmd}, OnUsageError: clix.OnUsageError, Action: clix.GroupAction}
}

// Run runs cmd as `cmdai ARGS...` (args start with cmd's name, or
// "index" and its name for a command under Index) in an app
// set up as cmdai's: the global --batch-mode flag, usage errors as usage
// errors, empty string values refused, flags after arguments hoisted. The
// environment variables cmd's flags read are unset for the run but for
// those in env, so that the developer's own CMDAI_* settings do not leak
// in. Give each run a new command, as cmdai makes one per process: the
// library adds a help subcommand to a command it has run (after which
// flags after its argument are no longer hoisted), and its options keep
// the values parsed.
func Run(t *testing.T, cmd *cli.Command, env Env, args ...string) error {
	t.Helper()
	app := &cli.App{
		Name:     "cmdai",
		Flags:    []cli.Flag{&cli.BoolFlag{Name: "batch-mode", EnvVars: []string{"CMDAI_BATCH_MODE"}}},
		Commands: []*cli.Command{cmd},
		// as cmdai's: the exit code is the caller's, never os.Exit's
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   clix.OnUsageError,
		Writer:         &bytes.Buffer{},
		ErrWriter:      &bytes.Buffer{},
	}
	clix.RefuseEmptyValues(app.Commands)
	setEnv(t, app, env)
	return app.RunContext(context.Background(), clix.HoistFlags(app, append([]string{"cmdai"}, args...)))
}

// setEnv unsets every variable app's flags read, then sets env's.
func setEnv(t *testing.T, app *cli.App, env Env) {
	t.Helper()
	var walk func(flags []cli.Flag, cmds []*cli.Command)
	walk = func(flags []cli.Flag, cmds []*cli.Command) {
		for _, fl := range flags {
			if df, ok := fl.(interface{ GetEnvVars() []string }); ok {
				for _, v := range df.GetEnvVars() {
					if _, set := os.LookupEnv(v); set {
						t.Setenv(v, "") // restored after the test
						os.Unsetenv(v)
					}
				}
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// Usage checks that err is a usage error (exit 2) whose message holds
// want.
func Usage(t *testing.T, err error, want string) {
	t.Helper()
	Code(t, err, cmdutil.ExitUsage, want)
}

// Code checks err's exit code and that its message holds want.
func Code(t *testing.T, err error, code int, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error; want exit %d with %q", code, want)
		return
	}
	if got := cmdutil.ExitCode(err); got != code {
		t.Errorf("exit %d (%v); want %d", got, err, code)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q; want one with %q", err, want)
	}
}
