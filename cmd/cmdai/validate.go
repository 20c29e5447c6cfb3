package main

// Checks of how a command was called. They run in each command's Action
// before anything is started (a Chroma server, the model), so that a
// mistake costs nothing, changes nothing and exits 2.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
)

// noArgs refuses positional arguments: a destructive command that ignored
// one ("index clear other-name") would act on something the user did not
// name. hint says what to use instead ("" for nothing).
func noArgs(c *cli.Context, hint string) error {
	if c.NArg() == 0 {
		return nil
	}
	msg := fmt.Sprintf("unexpected argument %q: %s takes no arguments", c.Args().First(), commandName(c))
	if hint != "" {
		msg += "; " + hint
	}
	return usageError("%s (see %q)", msg, helpHint(c))
}

// oneArg returns the single positional argument; missing says what to
// give when there is none (or it is empty).
func oneArg(c *cli.Context, missing string) (string, error) {
	switch {
	case c.NArg() == 0:
		return "", usageError("%s", missing)
	case c.NArg() > 1:
		return "", usageError("unexpected argument %q: %s takes one argument (see %q)", c.Args().Get(1), commandName(c), helpHint(c))
	case strings.TrimSpace(c.Args().First()) == "":
		return "", usageError("empty argument: %s", missing)
	}
	return c.Args().First(), nil
}

func commandName(c *cli.Context) string {
	if c == nil || c.Command == nil || c.Command.HelpName == "" {
		return "cmdai"
	}
	return strings.TrimSpace(c.Command.HelpName)
}

// groupAction is the Action of cmdai and of commands that only hold
// subcommands: help without arguments, a usage error for an unknown
// subcommand (the library's default says "No help topic" and exits 1).
func groupAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowSubcommandHelp(c)
	}
	return usageError("unknown command %q (see %q)", c.Args().First(), helpHint(c))
}

// appAction is groupAction for cmdai itself, whose help is the app's.
func appAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	return groupAction(c)
}

// checkDistroFlag refuses a --distro ID that names no distribution.
func checkDistroFlag(id string) error {
	if id == "" {
		return nil
	}
	if _, err := distro.Parse(id); err != nil {
		return usageError("--distro: %v", err)
	}
	return nil
}

// checkModelFlags refuses a model variant or backend that does not exist,
// before a model is looked for.
func checkModelFlags(o ModelOptions) error {
	switch o.Variant {
	case "", embed.VariantFP32, embed.VariantInt8:
	default:
		return usageError("--model-variant %q: use %s or %s", o.Variant, embed.VariantInt8, embed.VariantFP32)
	}
	switch o.Backend {
	case "", embed.BackendORT, embed.BackendGo:
	default:
		return usageError("--embed-backend %q: use %s or %s", o.Backend, embed.BackendORT, embed.BackendGo)
	}
	return nil
}

// notNegative refuses a negative count given to flag name (0 means "the
// default" for these).
func notNegative(name string, n int) error {
	if n < 0 {
		return usageError("--%s must be 0 or more, not %d", name, n)
	}
	return nil
}

// existingDirs refuses a directory flag (--docs DIR) that names no
// directory: skipped silently, a typo would index without those docs, and
// a refresh would remove the ones indexed from the right name.
func existingDirs(c *cli.Context, name string) ([]string, error) {
	dirs, err := noEmptyElements(c, name)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, usageError("--%s %s: not a directory (check the path; nothing was changed)", name, d)
		}
	}
	return dirs, nil
}

// noEmptyElements refuses an empty value among a repeatable flag's
// (--command "", --docs ""): it would name nothing, or everything.
func noEmptyElements(c *cli.Context, name string) ([]string, error) {
	vals := c.StringSlice(name)
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			return nil, usageError("--%s needs a value: an empty one names nothing (leave the flag out instead)", name)
		}
	}
	return vals, nil
}

// outputPath refuses an output (a file to write, or a directory to write
// into) whose directory does not exist: found only after the export's
// work otherwise.
func outputPath(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageError("cannot write %s: %s is not a directory (create it first, or give another place)", path, dir)
	}
	return nil
}

// firstErr returns the first non-nil error: a command's checks in order.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// refuseEmptyValues makes every string flag of cmds and their subcommands
// refuse an empty value given on the command line, as in `--distro ""`:
// an empty value silently meant the default, and for `index clear` the
// default is this machine's index. An environment variable set to empty
// (CMDAI_DISTRO=) still means "unset": only the command line goes
// through flag.Value.Set, which is what is wrapped.
func refuseEmptyValues(cmds []*cli.Command) {
	for _, c := range cmds {
		for i, f := range c.Flags {
			if sf, ok := f.(*cli.StringFlag); ok {
				c.Flags[i] = &nonEmptyStringFlag{StringFlag: sf}
			}
		}
		refuseEmptyValues(c.Subcommands)
	}
}

// nonEmptyStringFlag is a StringFlag whose command-line value may not be
// empty. given records that the command line set it, which c.IsSet cannot
// tell from its environment variable.
type nonEmptyStringFlag struct {
	*cli.StringFlag
	given bool
}

// onCommandLine says whether the string flag name was given on the
// command line, as opposed to through its environment variable.
func onCommandLine(c *cli.Context, name string) bool {
	for _, f := range c.Command.Flags {
		if nf, ok := f.(*nonEmptyStringFlag); ok && nf.given && slices.Contains(nf.Names(), name) {
			return true
		}
	}
	return false
}

func (f *nonEmptyStringFlag) Apply(set *flag.FlagSet) error {
	sf := f.StringFlag
	if envEmpty(sf.EnvVars) {
		// The library would take the empty value over the default
		// (CMDAI_QUERY_MODE= gave mode ""): apply it without its
		// environment instead.
		cp := *sf
		cp.EnvVars = nil
		sf = &cp
	}
	if err := sf.Apply(set); err != nil {
		return err
	}
	for _, name := range f.Names() {
		if fl := set.Lookup(name); fl != nil {
			fl.Value = nonEmptyValue{Value: fl.Value, name: f.Name, given: &f.given}
		}
	}
	return nil
}

// envEmpty says whether the environment variable the library would read
// for a flag (the first of vars that is set) is empty.
func envEmpty(vars []string) bool {
	for _, v := range vars {
		if val, ok := os.LookupEnv(strings.TrimSpace(v)); ok {
			return strings.TrimSpace(val) == ""
		}
	}
	return false
}

// nonEmptyValue refuses an empty Set; its error becomes a usage error
// (exit 2) through the command's OnUsageError.
type nonEmptyValue struct {
	flag.Value
	name  string
	given *bool
}

func (v nonEmptyValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("--%s needs a value: an empty one is not the default (leave the flag out, or unset its environment variable, for that)", v.name)
	}
	*v.given = true
	return v.Value.Set(s)
}

// Get keeps flag.Getter working for cli.Context.Value.
func (v nonEmptyValue) Get() any {
	if g, ok := v.Value.(flag.Getter); ok {
		return g.Get()
	}
	return v.String()
}
