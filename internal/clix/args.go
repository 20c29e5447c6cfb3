package clix

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// NoArgs refuses positional arguments: a destructive command that ignored
// one ("index clear other-name") would act on something the user did not
// name. hint says what to use instead ("" for nothing).
func NoArgs(c *cli.Context, hint string) error {
	if c.NArg() == 0 {
		return nil
	}
	msg := fmt.Sprintf("unexpected argument %q: %s takes no arguments", c.Args().First(), CommandName(c))
	if hint != "" {
		msg += "; " + hint
	}
	return Usagef("%s (see %q)", msg, HelpHint(c))
}

// OneArg returns the single positional argument; missing says what to
// give when there is none (or it is empty).
func OneArg(c *cli.Context, missing string) (string, error) {
	switch {
	case c.NArg() == 0:
		return "", Usagef("%s", missing)
	case c.NArg() > 1:
		return "", Usagef("unexpected argument %q: %s takes one argument (see %q)", c.Args().Get(1), CommandName(c), HelpHint(c))
	case strings.TrimSpace(c.Args().First()) == "":
		return "", Usagef("empty argument: %s", missing)
	}
	return c.Args().First(), nil
}

// HoistFlags lets flags follow positional arguments, as in
// `cmdai index query "count lines" -k 3 --json`: urfave/cli v2 stops
// parsing flags at the first argument, so the flags of the named
// subcommand are moved in front of its arguments. "--" ends flags as usual.
func HoistFlags(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Walk down the command tree along the leading command names.
	cmds := app.Commands
	var cmd *cli.Command
	i := 1
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		i++
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		if bf, ok := f.(interface{ IsBoolFlag() bool }); ok {
			isBool = bf.IsBoolFlag()
		}
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	for j := i; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			positional = append(positional, args[j+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		// -k1, as gh and getopt take it: a one-letter flag that takes a
		// value, with its value attached (Go's flag package refuses it)
		if short, value, ok := attached(a, takesValue); ok {
			flags = append(flags, short, value)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue[name] && j+1 < len(args) {
			flags = append(flags, args[j+1])
			j++
		}
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// attached splits a ("-k1") into a one-letter flag that takes a value
// and its value, when it is one and is not itself a flag's name.
func attached(a string, takesValue map[string]bool) (flag, value string, ok bool) {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' || strings.Contains(a, "=") {
		return "", "", false
	}
	if _, isFlag := takesValue[a[1:]]; isFlag || !takesValue[a[1:2]] {
		return "", "", false
	}
	return a[:2], a[2:], true
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
