// Package clix holds what a urfave/cli/v2 command line needs beyond the
// library and nothing of cmdai: usage errors, argument checks, flag checks,
// flags after positional arguments, and string flags that refuse an empty
// value.
//
// Checks of how a command was called run in each command's Action before
// anything is started (a server, a model), so that a mistake costs
// nothing, changes nothing and is reported as a usage error.
package clix

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// UsageError marks a mistake in how the command was called. Its message
// is the wrapped error's: the caller picks the exit code for it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// IsUsage says whether err is, or wraps, a UsageError.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// OnUsageError is the OnUsageError of every command: the library's flag
// error as a UsageError that says where the help is.
func OnUsageError(c *cli.Context, err error, _ bool) error {
	// The flag package prefixes `invalid value "" for flag -distro: ` to
	// our own message, which names the flag already.
	if m := errEmptyValue.FindStringSubmatch(err.Error()); m != nil {
		err = errors.New(m[1])
	}
	if u := unknownFlag(c, err); u != nil {
		return u
	}
	return &UsageError{Err: fmt.Errorf("%w (see %q)", err, HelpHint(c))}
}

var errEmptyValue = regexp.MustCompile(`^invalid value ".*" for flag -[\w-]+: (--[\w-]+ needs a value: .*)$`)

// HelpHint is the command line that shows c's help.
func HelpHint(c *cli.Context) string {
	if c == nil || c.Command == nil || c.Command.Name == "" {
		return appName(c) + " --help"
	}
	return strings.TrimSpace(c.Command.HelpName) + " --help"
}

// CommandName is c's full name, as in "cmdai index clear".
func CommandName(c *cli.Context) string {
	if c == nil || c.Command == nil || c.Command.HelpName == "" {
		return appName(c)
	}
	return strings.TrimSpace(c.Command.HelpName)
}

func appName(c *cli.Context) string {
	if c == nil || c.App == nil {
		return ""
	}
	return c.App.Name
}

// GroupAction is the Action of commands that only hold subcommands: help
// without arguments, a usage error for an unknown subcommand, with the
// nearest name when one is close (the library's default says "No help
// topic" and exits 1).
func GroupAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowSubcommandHelp(c)
	}
	return unknownCommand(c, c.Args().First())
}

// AppAction is GroupAction for the app itself, whose help is the app's.
func AppAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	return GroupAction(c)
}

// FirstErr returns the first non-nil error: a command's checks in order.
func FirstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
