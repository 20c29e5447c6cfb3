package clix

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// NotNegative refuses a negative count given to flag name (0 means "the
// default" for these).
func NotNegative(name string, n int) error {
	if n < 0 {
		return Usagef("--%s must be 0 or more, not %d", name, n)
	}
	return nil
}

// ExistingDirs refuses a directory flag (--docs DIR) that names no
// directory: skipped silently, a typo would act without it.
func ExistingDirs(c *cli.Context, name string) ([]string, error) {
	dirs, err := NoEmptyElements(c, name)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, Usagef("--%s %s: not a directory (check the path; nothing was changed)", name, d)
		}
	}
	return dirs, nil
}

// NoEmptyElements refuses an empty value among a repeatable flag's
// (--command "", --docs ""): it would name nothing, or everything.
func NoEmptyElements(c *cli.Context, name string) ([]string, error) {
	vals := c.StringSlice(name)
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			return nil, Usagef("--%s needs a value: an empty one names nothing (leave the flag out instead)", name)
		}
	}
	return vals, nil
}

// OutputPath refuses an output (a file to write, or a directory to write
// into) whose directory does not exist: found only after the command's
// work otherwise.
func OutputPath(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return Usagef("cannot write %s: %s is not a directory (create it first, or give another place)", path, dir)
	}
	return nil
}

// GlobalBool reads a bool flag of the command or any parent command (or
// the app), wherever on the command line it was given.
func GlobalBool(c *cli.Context, name string) bool {
	for _, l := range c.Lineage() {
		if l.Bool(name) {
			return true
		}
	}
	return false
}

// RefuseEmptyValues makes every string flag of cmds and their subcommands
// refuse an empty value given on the command line, as in `--distro ""`:
// an empty value would silently mean the default, which for a destructive
// command may be what the user did not name. An environment variable set
// to empty (CMDAI_DISTRO=) still means "unset": only the command line goes
// through flag.Value.Set, which is what is wrapped.
func RefuseEmptyValues(cmds []*cli.Command) {
	for _, c := range cmds {
		for i, f := range c.Flags {
			if sf, ok := f.(*cli.StringFlag); ok {
				c.Flags[i] = &nonEmptyStringFlag{StringFlag: sf}
			}
		}
		RefuseEmptyValues(c.Subcommands)
	}
}

// nonEmptyStringFlag is a StringFlag whose command-line value may not be
// empty. given records that the command line set it, which c.IsSet cannot
// tell from its environment variable.
type nonEmptyStringFlag struct {
	*cli.StringFlag
	given bool
}

// OnCommandLine says whether the string flag name was given on the
// command line, as opposed to through its environment variable (only for
// flags RefuseEmptyValues wrapped).
func OnCommandLine(c *cli.Context, name string) bool {
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
// through the command's OnUsageError.
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
