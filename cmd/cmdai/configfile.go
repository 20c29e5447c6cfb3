package main

// The configuration file's hook into the command tree. Package config
// finds, parses and checks the file; here its values reach the flags that
// neither the command line nor a CMDAI_* variable set, so that every
// command sees one order: flag > env > file > default.

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/clix"
)

const configHelp = `CONFIGURATION:
   A setting comes from its flag, else its CMDAI_* environment variable,
   else the configuration file, else its default. The file is
   ~/.config/cmdai/config.yaml, in YAML (XDG_CONFIG_HOME or
   CMDAI_HOME move it; CMDAI_CONFIG names another). Its keys are the
   variables' names without CMDAI_, lowercased, "_" as "-"; home (as
   CMDAI_HOME) moves the cache. An unknown key, a wrong type or a file that
   does not parse is a usage error (exit 2), as is anything but a regular
   file (a FIFO, a device), a file over 1 MiB or nested over 64 deep, and
   one not read within 10 s. For example:
      chroma-url: http://chroma.internal:8000
      model-variant: fp32
      stall-timeout: 2m`

// applyConfigFile makes the configuration file a source of every flag
// with a CMDAI_* variable, in app and all its commands (configHelp, the
// topic `cmdai help config`, documents it). The file is read once, when a
// command is about to run; a file that does not load fails the command that runs (exit 2),
// after its flags are parsed, so that `--help` stays readable whatever
// the file holds. It must be called before clix.RefuseEmptyValues wraps the
// string flags: it binds their types.
func applyConfigFile(f *cmdutil.Factory, app *cli.App) {
	l := &configLoader{getenv: f.Getenv}
	app.Before = l.before(app.Before, bindConfig(app.Flags), false)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Category == clix.TopicCategory {
				continue // text: it reads no settings, and explains a bad file
			}
			b, leaf := bindConfig(c.Flags), len(c.Subcommands) == 0
			if len(b) > 0 || leaf {
				c.Before = l.before(c.Before, b, leaf)
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// configBinding ties a flag to the CMDAI_* variable, and so the
// configuration key, it reads.
type configBinding struct {
	flag cli.Flag
	name string
	env  string
}

func bindConfig(flags []cli.Flag) []configBinding {
	var out []configBinding
	for _, fl := range flags {
		ef, ok := fl.(interface{ GetEnvVars() []string })
		if !ok {
			continue
		}
		for _, env := range ef.GetEnvVars() {
			if strings.HasPrefix(env, "CMDAI_") {
				out = append(out, configBinding{flag: fl, name: fl.Names()[0], env: env})
			}
		}
	}
	return out
}

// configLoader reads the configuration file once per run.
type configLoader struct {
	getenv func(string) string
	file   *config.File
	err    error
	done   bool
}

// load reads the file once, bounded (config.LoadContext): a signal while
// it reads ends the run with the signal's exit code.
func (l *configLoader) load(ctx context.Context) (*config.File, error) {
	if !l.done {
		l.file, l.err = config.LoadContext(ctx, l.getenv)
		l.done = true
	}
	return l.file, l.err
}

// helpAsked says whether the words after a group (or the app) ask for
// help: the command that shows it reads no settings, so neither does the
// group on its way there, whatever the file holds.
func helpAsked(c *cli.Context) bool {
	args := c.Args().Slice()
	if len(args) > 0 && (args[0] == "help" || args[0] == "h") {
		return true
	}
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help" || a == "-h" || a == "-help" {
			return true
		}
	}
	return false
}

// before runs after a command's flags are parsed: it fills those of binds
// left unset, then runs next. A file that does not load is the error of
// the leaf command; a group, or the app, leaves it to that command (a
// group's Before runs before its subcommand looks for --help).
func (l *configLoader) before(next cli.BeforeFunc, binds []configBinding, leaf bool) cli.BeforeFunc {
	return func(c *cli.Context) error {
		if !leaf && helpAsked(c) {
			if next != nil {
				return next(c)
			}
			return nil
		}
		file, err := l.load(c.Context)
		if err != nil && c.Context.Err() != nil {
			return err // a signal: the run ends now, with its code
		}
		if err != nil && leaf {
			return cmdutil.WithCode(cmdutil.ExitUsage, err)
		}
		for _, b := range binds {
			v, ok := file.Fallback(b.env, c.IsSet(b.name))
			if !ok {
				continue
			}
			if err := setFromConfig(c, b, v); err != nil {
				return fmt.Errorf("--%s from %s: %w", b.name, file.Path, err)
			}
		}
		if next != nil {
			return next(c)
		}
		return nil
	}
}

// setFromConfig gives a flag the file's value as its environment
// variable would: through its destination, marked as set (c.IsSet is
// true, as for a variable) but not as given on the command line, which
// some checks tell apart (index clear --all against --distro). A flag
// without a destination is read from the context: it is set there.
func setFromConfig(c *cli.Context, b configBinding, v any) error {
	switch fl := b.flag.(type) {
	case *cli.StringFlag:
		if fl.Destination != nil {
			return setDest(fl.Destination, &fl.HasBeenSet, v)
		}
	case *cli.BoolFlag:
		if fl.Destination != nil {
			return setDest(fl.Destination, &fl.HasBeenSet, v)
		}
	case *cli.IntFlag:
		if fl.Destination != nil {
			return setDest(fl.Destination, &fl.HasBeenSet, v)
		}
	case *cli.DurationFlag:
		if fl.Destination != nil {
			return setDest(fl.Destination, &fl.HasBeenSet, v)
		}
	}
	return c.Set(b.name, fmt.Sprint(v))
}

func setDest[T any](dest *T, set *bool, v any) error {
	t, ok := v.(T)
	if !ok {
		return fmt.Errorf("the file gives a %T where the flag takes a %T", v, *dest)
	}
	*dest, *set = t, true
	return nil
}
