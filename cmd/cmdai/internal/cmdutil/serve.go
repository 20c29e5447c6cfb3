package cmdutil

import (
	"context"
	"fmt"
	"io"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/servelock"
)

// NoServeFlag is --no-serve of the commands that use a running serve.
func NoServeFlag(dest *bool) cli.Flag {
	return &cli.BoolFlag{Name: "no-serve", Category: ServeCategory, Usage: "answer in this process even when a cmdai serve runs", EnvVars: []string{"CMDAI_NO_SERVE"}, Destination: dest}
}

// serveClient is the real ServeClient: the serve of this data home, if
// one runs. Any failure to reach it (no socket, a stale one, a refused
// or silent connection) is "none": the caller does the work itself.
func (f *Factory) serveClient(ctx context.Context) (*serve.Client, bool) {
	socket, err := config.ServeSocket(f.Getenv)
	if err != nil {
		return nil, false
	}
	c, err := serve.Dial(ctx, socket)
	if err != nil {
		return nil, false
	}
	return c, true
}

// serveHeld says whether a serve holds this data home's serve lock (a
// live process): after ServeClient found none answering, one stopped or
// frozen (serve.Finder.Held).
func (f *Factory) serveHeld() bool {
	if f.Getenv == nil {
		return false
	}
	socket, err := config.ServeSocket(f.Getenv)
	return err == nil && servelock.Starting(socket)
}

// dataHeldBriefly tells whether the private server's data (the default
// directory) is held by a holder that lets go within seconds, as a cheap
// check (a lock attempt, nothing loaded) a waiting call makes before it
// tries to answer itself again.
func (f *Factory) dataHeldBriefly() bool {
	if f.Getenv == nil {
		return false
	}
	dir, err := config.ChromaDir(f.Getenv)
	if err != nil {
		return false
	}
	held, kind := datalock.HeldBy(dir)
	return held && kind.Brief()
}

// serveLease lends the private server of dataDir when a running serve
// owns it (connect.Lease): the command then writes through serve's server
// under its write lease (serve's queries wait, and it reloads when the
// lease ends) instead of starting its own, which the data lock would
// refuse. ok false: no serve, or one on another Chroma.
func (f *Factory) serveLease(ctx context.Context, dataDir string, read bool) (string, io.Closer, bool, error) {
	c, ok := f.ServeClient(ctx)
	if !ok {
		return "", nil, false, nil
	}
	defer c.Close()
	h, err := c.Health(ctx)
	if err != nil || h.DataDir == "" || !connect.SameDir(h.DataDir, dataDir) {
		return "", nil, false, nil
	}
	lease, err := c.Lease(ctx, read)
	if err != nil {
		return "", nil, true, err
	}
	return lease.ChromaURL, lease, true, nil
}

// stopServe sends SIGTERM to the serve listening on socket, which says
// it is pid: only when the kernel says the socket's process is that pid
// and this user's (SocketPeer; where it cannot tell, the pid is taken as
// said).
func stopServe(socket string, pid int) error {
	peer, err := SocketPeer(socket)
	if err != nil {
		return err
	}
	if peer != 0 && peer != pid {
		return fmt.Errorf("the process on %s is pid %d but says it is pid %d: not stopped (stop it yourself if it is yours)", socket, peer, pid)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop cmdai serve (pid %d): %w", pid, err)
	}
	return nil
}

// OtherBuild is what a door does about a running serve of another build
// than its own, or of other models (serve.Finder.OtherBuild): its answers
// are never used. A
// background one (started by a command) is stopped (StopServe), so that
// one of this build replaces it; one started by hand is left to its
// owner. Either way the door answers itself and says so, once a process.
func (f *Factory) OtherBuild(socket string, h serve.Health) bool {
	var stopErr error
	stopped := false
	if h.Background && f.StopServe != nil {
		stopErr = f.StopServe(socket, h.PID)
		stopped = stopErr == nil
	}
	if f.IO == nil {
		return stopped
	}
	f.otherBuildOnce.Do(func() {
		var why string
		switch h.Build {
		case "":
			why = "is of a build from before builds were named, not this cmdai's"
		case buildid.Self():
			why = "answers with other models than those installed now (a model or reranker was imported since it started)"
		default:
			why = fmt.Sprintf("is of another build (%s) than this cmdai", h.Build)
		}
		switch {
		case stopped:
			fmt.Fprintf(f.IO.ErrOut, "cmdai: the background serve (pid %d) %s: stopped it; answering here, and a new serve starts for the next calls\n", h.PID, why)
		case stopErr != nil:
			fmt.Fprintf(f.IO.ErrOut, "cmdai: the background serve (pid %d) %s and could not be stopped (%v): answering here\n", h.PID, why, stopErr)
		default:
			fmt.Fprintf(f.IO.ErrOut, "cmdai: the running serve (pid %d) %s: answering here; restart it (`cmdai serve --stop`, then `cmdai serve`) to answer fast again\n", h.PID, why)
		}
	})
	return stopped
}
