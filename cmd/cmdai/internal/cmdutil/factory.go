// Package cmdutil is what every cmdai command shares: the Factory that
// gives a command its terminal, its environment and, when it asks, a
// Chroma connection, an embedder and the distribution; the flags that
// choose them; and every exit code.
//
// The command packages follow gh's pattern: a command's constructor,
// NewCmdX(f, runF), declares its flags bound to an options struct that
// embeds the Factory, checks how it was called, then calls runF with the
// options (a test's, which sees what the user asked) or, when runF is
// nil, the command's own run. A unit test builds the Factory with
// buffers and fakes for Connect, Embedder, ServeClient and DetectDistro
// (package cmdtest); only the integration tests need the real parts.
package cmdutil

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/serve"
)

// Factory holds what every command needs from its environment. The
// parts that reach outside the process (Chroma, the model, a running
// serve, the machine's distribution) are functions a command calls when
// it needs them: nothing is opened until a command asks, so a usage error
// starts no server and loads no model, and a test replaces any of them
// with a fake (gh's Factory). NewFactory fills them with the real ones.
type Factory struct {
	IO *IOStreams
	// Getenv reads the environment (os.Getenv in main).
	Getenv func(string) string
	// Version is cmdai's own, recorded in the indexes it builds.
	Version string

	// Connect reaches the configured Chroma server, starting the private
	// one when no URL is given. Errors carry the exit code and the fix.
	Connect func(ctx context.Context, o ChromaOptions) (*connect.Connection, error)
	// Embedder opens the installed model; a missing or damaged model is
	// exit 5 with the command that installs it.
	Embedder func(ctx context.Context, o ModelOptions, threads int) (embed.Embedder, error)
	// ServeClient reaches the serve of this data home, if one runs; false
	// when none answers (the caller does the work itself).
	ServeClient func(ctx context.Context) (*serve.Client, bool)
	// DetectDistro tells this machine's distribution, for the commands
	// run without --distro (nil: distro.Detect).
	DetectDistro func(ctx context.Context) (distro.Info, error)
	// StartServe starts `cmdai serve --background` for this data home,
	// holding distribution distroID's index ("": this machine's) and
	// exiting after idle without a request, and gives its pid
	// (autostart.ErrRunning: one runs already).
	StartServe func(idle time.Duration, distroID string) (int, error)
	// StopServe sends SIGTERM to the serve on socket, which says it is
	// pid, when the kernel agrees (SocketPeer); it does not wait.
	StopServe func(socket string, pid int) error
	// Batch is --batch-mode (the app sets it before a command runs).
	Batch bool

	otherBuildOnce sync.Once
}

// NewFactory is the Factory of a cmdai process: io its terminal, getenv
// its environment, version cmdai's own, and the real Chroma connection,
// model, serve client and distribution detection.
func NewFactory(io *IOStreams, getenv func(string) string, version string) *Factory {
	f := &Factory{IO: io, Getenv: getenv, Version: version, DetectDistro: distro.Detect}
	f.Connect = f.connect
	f.Embedder = f.embedder
	f.ServeClient = f.serveClient
	f.StartServe = f.startServe
	f.StopServe = stopServe
	return f
}

// OpenDistroIndex resolves the distribution (--distro, else detected)
// and connects to Chroma: the start of every command that reads or
// changes an index. The caller closes the connection.
func (f *Factory) OpenDistroIndex(ctx context.Context, distroID string, o ChromaOptions) (distro.Info, *connect.Connection, error) {
	info, err := ResolveDistro(ctx, distroID, f.DetectDistro)
	if err != nil {
		return info, nil, err
	}
	conn, err := f.Connect(ctx, o)
	return info, conn, err
}

// ResolveDistro applies --distro or detects this machine's distribution
// (with detect, or distro.Detect when nil).
func ResolveDistro(ctx context.Context, id string, detect func(context.Context) (distro.Info, error)) (distro.Info, error) {
	if id != "" {
		info, err := distro.Parse(id)
		if err != nil {
			return info, WithCode(ExitUsage, fmt.Errorf("--distro: %w", err))
		}
		return info, nil
	}
	if detect == nil {
		detect = distro.Detect
	}
	info, err := detect(ctx)
	if err != nil {
		return info, fmt.Errorf("detect distribution: %w (pass --distro ID, e.g. --distro debian-12)", err)
	}
	if err := distro.ValidCollectionName(info.CollectionName()); err != nil {
		return info, fmt.Errorf("detected distribution %q gives no valid collection name: %w (pass --distro ID)", info.ID, err)
	}
	return info, nil
}

// CheckDistroFlag refuses a --distro ID that names no distribution.
func CheckDistroFlag(id string) error {
	if id == "" {
		return nil
	}
	if _, err := distro.Parse(id); err != nil {
		return UsageError("--distro: %v", err)
	}
	return nil
}

// ResolveModelDir is the model to read: --model-dir, else the one
// installed in the data root, else the one installed with cmdai
// (embed.PickModelDir).
func (f *Factory) ResolveModelDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	installed, err := config.ModelDir(f.Getenv, embed.ModelName)
	if err != nil {
		return "", err
	}
	return embed.PickModelDir(installed, config.ThisInstall().ModelDir(embed.ModelName)), nil
}

// ModelInstallDir is where `cmdai model import` and `pull` install the
// model: --model-dir, else the data root's.
func (f *Factory) ModelInstallDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return config.ModelDir(f.Getenv, embed.ModelName)
}

// embedder is the real Embedder: the model ResolveModelDir finds.
func (f *Factory) embedder(ctx context.Context, o ModelOptions, threads int) (embed.Embedder, error) {
	dir, err := f.ResolveModelDir(o.Dir)
	if err != nil {
		return nil, err
	}
	e, err := embed.Open(ctx, embed.Options{
		Dir: dir, Variant: o.Variant, Backend: o.Backend, Threads: threads,
		Notice: func(s string) { fmt.Fprintln(f.IO.ErrOut, s) },
	})
	if err != nil {
		return nil, WithCode(ExitVerification, err)
	}
	return e, nil
}
