package clix

import (
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// closeEnough is the Jaro-Winkler similarity from which a name is taken
// for a typo of another: "qurey"/"query" 0.95, "jsno"/"json" 0.93,
// "cleer"/"clear" 0.91, while unrelated words ("bogus"/"docs" 0.63,
// "foo"/"force" 0.69) stay below. The library's own suggester
// (cli.SuggestCommand, App.Suggest) always names the nearest command,
// however far: "did you mean" for "bogus" would be noise.
const closeEnough = 0.8

// Closest is the name among names nearest to typed by Jaro-Winkler
// similarity (the metric and parameters of urfave/cli's suggester), or ""
// when none is closeEnough.
func Closest(typed string, names []string) string {
	best, bestScore := "", closeEnough
	for _, n := range names {
		// boost threshold 0.7, prefix 4: as urfave/cli's jaroWinkler
		if s := smetrics.JaroWinkler(typed, n, 0.7, 4); s >= bestScore {
			best, bestScore = n, s
		}
	}
	return best
}

// commandNames are the names a user may type for cmds: visible commands
// and their aliases, not the library's help command.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		names = append(names, c.Names()...)
	}
	return names
}

// unknownCommand is the usage error for a subcommand name of c that does
// not exist, with the nearest name when one is close.
func unknownCommand(c *cli.Context, name string) error {
	msg := "unknown command %q for %q"
	args := []any{name, CommandName(c)}
	var cmds []*cli.Command
	if c != nil && c.Command != nil && len(c.Command.Subcommands) > 0 {
		cmds = c.Command.Subcommands
	} else if c != nil && c.App != nil {
		cmds = c.App.Commands
	}
	if s := Closest(name, commandNames(cmds)); s != "" {
		msg += "; did you mean %q?"
		args = append(args, s)
	}
	args = append(args, HelpHint(c))
	return Usagef(msg+" (see %q)", args...)
}

// NotFound turns the library's CommandNotFound hook, called for `help
// bogus` and unable to return an error, into a usage error: Hook records
// it, Err returns it once the app has run.
type NotFound struct{ err error }

// Hook is a cli.CommandNotFoundFunc.
func (n *NotFound) Hook(c *cli.Context, name string) { n.err = unknownCommand(c, name) }

// Err is the recorded usage error, or nil.
func (n *NotFound) Err() error { return n.err }

// undefinedFlag matches the flag package's error for an unknown flag.
var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)

// unknownFlag rewrites the flag package's "flag provided but not
// defined: -jsno" as a usage error naming the command and the nearest
// flag of it, or returns nil when err is another error.
func unknownFlag(c *cli.Context, err error) error {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	var names []string
	if c != nil && c.Command != nil {
		for _, f := range c.Command.VisibleFlags() {
			names = append(names, f.Names()...)
		}
	}
	if cli.HelpFlag != nil {
		names = append(names, cli.HelpFlag.Names()...)
	}
	msg := "unknown flag %s for %q"
	args := []any{dashed(m[1]), CommandName(c)}
	if s := Closest(m[1], names); s != "" {
		msg += "; did you mean %s?"
		args = append(args, dashed(s))
	}
	args = append(args, HelpHint(c))
	return Usagef(msg+" (see %q)", args...)
}

// dashed is a flag name as typed: -k, --json.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + strings.TrimLeft(name, "-")
}
