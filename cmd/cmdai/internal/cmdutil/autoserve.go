package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/autostart"
)

// DefaultAutoServeIdle is how long a serve started in the background
// waits for a request before it exits: long enough for a person's or an
// agent's next question, short enough that an idle machine gets its
// memory (~200 MiB) back soon.
const DefaultAutoServeIdle = 5 * time.Minute

// AutoServeOptions say whether a read command that answered alone,
// because no serve ran, starts one in the background for the calls
// after it (--auto-serve, CMDAI_AUTO_SERVE, auto-serve in the file), and
// how long that serve stays idle (--auto-serve-idle).
type AutoServeOptions struct {
	On   bool
	Idle time.Duration
	// Distro is the distribution the command asked for ("": this
	// machine's): the index the serve it starts holds.
	Distro string
	// on is the --auto-serve flag: set (by flag, variable or file), its
	// value holds even where a background process is unwelcome.
	on *cli.BoolFlag
	// writer: the options of a command that writes an index (ForWriter),
	// which has no flag; set: its variable (or file key) was set.
	writer, set bool
}

// ForWriter is the auto-serve setting of a command that writes an index
// (init, refresh, import, download), for this machine's index: the read
// commands' setting (CMDAI_AUTO_SERVE and CMDAI_AUTO_SERVE_IDLE, or their
// keys in the configuration file; default on, off where a background
// process is unwelcome and under the command's own --batch-mode), so
// that the serve the first answer would start is started, and warm,
// once the write is done.
func (f *Factory) ForWriter(batch bool) AutoServeOptions {
	o := AutoServeOptions{On: !batch, Idle: DefaultAutoServeIdle, writer: true}
	if v := f.getenv()("CMDAI_AUTO_SERVE"); v != "" && !batch {
		on, err := strconv.ParseBool(v)
		o.On, o.set = on && err == nil, true
	}
	if v := f.getenv()("CMDAI_AUTO_SERVE_IDLE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			o.Idle = d
		}
	}
	return o
}

// AutoServeFlags are --auto-serve and --auto-serve-idle.
func AutoServeFlags(o *AutoServeOptions) []cli.Flag {
	o.on = &cli.BoolFlag{Name: "auto-serve", Value: true, Usage: "when no cmdai serve runs, answer here, then start one in the background so that the next calls are answered warm (default on, off under CI=true or --batch-mode; --auto-serve=false: never)", EnvVars: []string{"CMDAI_AUTO_SERVE"}, Destination: &o.On}
	return clix.WithCategory(ServeCategory, o.on,
		&cli.DurationFlag{Name: "auto-serve-idle", Value: DefaultAutoServeIdle, Usage: "a serve started in the background exits after `DURATION` without a request", EnvVars: []string{"CMDAI_AUTO_SERVE_IDLE"}, Destination: &o.Idle},
	)
}

// For is o for a command that asked for distribution id ("": this
// machine's).
func (o AutoServeOptions) For(id string) AutoServeOptions {
	o.Distro = id
	return o
}

// AutoServeOff says why no serve is started in the background ("": one
// is): turned off, or, unless turned on explicitly, a place where a
// background process is unwelcome (autostart.Unwelcome).
func (f *Factory) AutoServeOff(o AutoServeOptions) string {
	switch {
	case o.on == nil && !o.writer:
		return "not a read command"
	case !o.On:
		return "auto-serve is off"
	case o.set || (o.on != nil && o.on.IsSet()):
		return ""
	}
	return autostart.Unwelcome(f.Getenv, f.Batch)
}

// AutoStart is what starts a serve in the background after a command
// answered alone (nil: none is started, AutoServeOff says why). A serve
// that cannot start costs a warning on stderr, never the answer.
func (f *Factory) AutoStart(o AutoServeOptions) func() int {
	if f.AutoServeOff(o) != "" || o.Idle <= 0 {
		return nil
	}
	return func() int {
		pid, err := f.StartServe(o.Idle, o.Distro)
		switch {
		case errors.Is(err, autostart.ErrRunning):
			return 0
		case err != nil:
			fmt.Fprintf(f.IO.ErrOut, "warning: could not start cmdai serve in the background: %v; answers stay one-shot (about a second each): --auto-serve=false (or auto-serve: false in the configuration file) stops trying\n", err)
			return 0
		case f.IO.ErrTTY:
			fmt.Fprintf(f.IO.ErrOut, "cmdai: started cmdai serve in the background (pid %d; it exits after %s without a request; `cmdai serve --stop` stops it): the next answers come warm\n", pid, o.Idle)
		}
		return pid
	}
}

// startServe is the real StartServe: this executable's `serve
// --background`, logging to config.ServeLogFile.
func (f *Factory) startServe(idle time.Duration, distroID string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find cmdai's own executable: %w", err)
	}
	socket, err := config.ServeSocket(f.Getenv)
	if err != nil {
		return 0, err
	}
	log, err := config.ServeLogFile(f.Getenv)
	if err != nil {
		return 0, err
	}
	args := []string{"serve", "--background", "--idle-timeout", idle.String()}
	if distroID != "" {
		args = append(args, "--distro", distroID)
	}
	return autostart.Start(autostart.Spec{Exe: exe, Args: args, Socket: socket, Log: log})
}

// buildOf names serve's build for ServeState, and whether it is this
// cmdai's (a door uses only a serve of its own build).
func buildOf(h serve.Health) string {
	switch h.Build {
	case buildid.Self():
		return "this cmdai's build"
	case "":
		return "a build before builds were named, not this cmdai's: its answers are not used"
	}
	return fmt.Sprintf("build %s, not this cmdai's (%s): its answers are not used", h.Build, buildid.Self())
}

// ServeState describes the serve of this data home for status and
// doctor: its pid, how it started, when it exits if idle, and how to stop
// it; or that none runs, and whether the next read command starts one.
func (f *Factory) ServeState(ctx context.Context, o AutoServeOptions) string {
	if c, ok := f.ServeClient(ctx); ok {
		h, err := c.Health(ctx)
		c.Close()
		if err == nil {
			how, idle := "started by hand", "no idle exit"
			if h.Background {
				how = "started in the background"
			}
			if !h.IdleUntil.IsZero() {
				idle = "exits if idle at " + h.IdleUntil.Local().Format("15:04:05")
			}
			return fmt.Sprintf("pid %d on %s, %s, %s, %s (`cmdai serve --stop` stops it)", h.PID, c.Socket(), how, idle, buildOf(h))
		}
	}
	if why := f.AutoServeOff(o); why != "" {
		return "none runs; read commands answer one-shot (" + why + ")"
	}
	if socket, err := config.ServeSocket(f.Getenv); err == nil {
		if err := autostart.SocketUsable(socket); err != nil {
			return "none runs; read commands answer one-shot: " + err.Error()
		}
	}
	return "none runs; the next read command starts one in the background"
}
