package clix

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// BoolWatch tells, once the app has run, whether a bool flag (--json)
// was on for the command that ran: as the command saw it (command line,
// environment, configuration) when its Action started, or, when the run
// failed before (an unknown flag, a missing argument), as the command
// line and the flag's environment variables give it.
type BoolWatch struct {
	name    string
	app     *cli.App
	ran, on bool
}

// WatchBool wraps the Action of every command of app that has the bool
// flag name, to see its value.
func WatchBool(app *cli.App, name string) *BoolWatch {
	w := &BoolWatch{name: name, app: app}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if boolFlag(c.Flags, name) != nil && c.Action != nil {
				action := c.Action
				c.Action = func(ctx *cli.Context) error {
					w.ran, w.on = true, ctx.Bool(name)
					return action(ctx)
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	return w
}

// On says whether the flag was on for the command args name (args as
// given to the app, the program's name first).
func (w *BoolWatch) On(args []string) bool {
	if w.ran {
		return w.on
	}
	cmds := w.app.Commands
	var cmd *cli.Command
	for _, a := range args[min(1, len(args)):] {
		if strings.HasPrefix(a, "-") {
			continue // a global flag before the command's name
		}
		next := findCommand(cmds, a)
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
	}
	if cmd == nil {
		return false
	}
	f := boolFlag(cmd.Flags, w.name)
	if f == nil {
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !slices.Contains(f.Names(), name) {
			continue
		}
		if !hasVal {
			return true
		}
		on, err := strconv.ParseBool(val)
		return err == nil && on
	}
	for _, env := range f.EnvVars {
		if v, ok := os.LookupEnv(env); ok {
			on, err := strconv.ParseBool(strings.TrimSpace(v))
			return err == nil && on
		}
	}
	return f.Value
}

func boolFlag(flags []cli.Flag, name string) *cli.BoolFlag {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok && slices.Contains(b.Names(), name) {
			return b
		}
	}
	return nil
}
