package clix

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// Deprecated is an old spelling of a flag, kept so that scripts keep
// working while the help shows the new one alone: a hidden flag Old that
// sets the flag New as if New were given (c.IsSet(New) is true), after a
// note on Out. OldEnv, when not empty, is the old spelling's environment
// variable (and so configuration key): set, and New's own not, it sets
// New the same way, with the note. The flag must come after New in the
// command's flags (it finds New's value when it is applied).
type Deprecated struct {
	Old, New       string
	OldEnv, NewEnv string
	// Why ends the note: what the old spelling means elsewhere, say.
	Why string
	Out io.Writer
	// Bool: New is a bool flag (it takes no value).
	Bool bool

	set  bool
	fs   *flag.FlagSet
	once sync.Once
}

// Note is what the flag prints when an old spelling is used.
func (d *Deprecated) Note() string {
	old, new := "--"+d.Old, "--"+d.New
	if d.OldEnv != "" {
		old += " (" + d.OldEnv + ", config key " + EnvKey(d.OldEnv) + ")"
		new += " (" + d.NewEnv + ", " + EnvKey(d.NewEnv) + ")"
	}
	note := fmt.Sprintf("cmdai: %s is deprecated: use %s", old, new)
	if d.Why != "" {
		note += "; " + d.Why
	}
	return note
}

// EnvKey is the configuration key of a CMDAI_* variable.
func EnvKey(env string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(env, "CMDAI_")), "_", "-")
}

func (d *Deprecated) warn() {
	d.once.Do(func() {
		if d.Out != nil {
			fmt.Fprintln(d.Out, d.Note())
		}
	})
}

// Apply defines Old on set, forwarding to New's value.
func (d *Deprecated) Apply(set *flag.FlagSet) error {
	target := set.Lookup(d.New)
	if target == nil {
		return fmt.Errorf("deprecated flag --%s: no --%s before it", d.Old, d.New)
	}
	d.fs = set
	v := &aliasValue{Value: target.Value, set: set, d: d}
	if bf, ok := target.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		set.Var(&boolAliasValue{v}, d.Old, "")
	} else {
		set.Var(v, d.Old, "")
	}
	if d.OldEnv == "" {
		return nil
	}
	if envSet(d.NewEnv) {
		return nil // the new variable wins, as a flag over a variable
	}
	if val, ok := os.LookupEnv(d.OldEnv); ok && strings.TrimSpace(val) != "" {
		d.warn()
		if err := set.Set(d.New, val); err != nil {
			return fmt.Errorf("%s %q: %w", d.OldEnv, val, err)
		}
	}
	return nil
}

// TakesValue says whether the flag reads the next word as its value.
func (d *Deprecated) TakesValue() bool { return !d.Bool }

// IsBoolFlag is Bool: flags moved before positional arguments
// (HoistFlags) keep their values.
func (d *Deprecated) IsBoolFlag() bool { return d.Bool }

// envSet says whether the variable name is set to something (an empty
// variable counts as unset, as for every flag).
func envSet(name string) bool {
	v, ok := os.LookupEnv(name)
	return name != "" && ok && strings.TrimSpace(v) != ""
}

// Names are the old spelling alone.
func (d *Deprecated) Names() []string { return []string{d.Old} }

// IsSet says whether the old spelling or the new one was given (on the
// command line or by the new variable): the configuration file's old key
// is a fallback of both.
func (d *Deprecated) IsSet() bool {
	if d.set {
		return true
	}
	if envSet(d.NewEnv) {
		return true
	}
	given := false
	if d.fs != nil {
		d.fs.Visit(func(f *flag.Flag) { given = given || f.Name == d.New })
	}
	return given
}

// IsVisible is false: help shows the new spelling only.
func (d *Deprecated) IsVisible() bool { return false }

// GetEnvVars is the old variable: the configuration file's old key
// reaches New through it (and gets the note).
func (d *Deprecated) GetEnvVars() []string {
	if d.OldEnv == "" {
		return nil
	}
	return []string{d.OldEnv}
}

func (d *Deprecated) String() string { return "--" + d.Old + " (deprecated: --" + d.New + ")" }

// aliasValue sets New's value through the flag set (which marks New as
// given), after the note.
type aliasValue struct {
	flag.Value
	set *flag.FlagSet
	d   *Deprecated
}

func (v *aliasValue) Set(s string) error {
	v.d.warn()
	v.d.set = true
	return v.set.Set(v.d.New, s)
}

var _ cli.VisibleFlag = (*Deprecated)(nil)

type boolAliasValue struct{ *aliasValue }

func (boolAliasValue) IsBoolFlag() bool { return true }
