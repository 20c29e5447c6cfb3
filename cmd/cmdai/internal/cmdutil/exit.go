package cmdutil

import (
	"errors"

	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/internal/netwait"
)

// Exit codes are part of the interface: scripts and CI branch on them.
// internal/exitcode is the one place that names them; these are its
// names as every command package spells them.
const (
	ExitOK            = exitcode.OK
	ExitFailure       = exitcode.Failure
	ExitUsage         = exitcode.Usage
	ExitNoIndex       = exitcode.NoIndex
	ExitUnreachable   = exitcode.Unreachable
	ExitVerification  = exitcode.Verification
	ExitBusy          = exitcode.Busy
	ExitUnknownOption = exitcode.UnknownOption
)

// ExitCodesHelp is the EXIT CODES block of `cmdai --help`.
const ExitCodesHelp = `EXIT CODES:
   0  success
   1  failure
   2  usage error (bad flag or argument)
   3  no index yet (run "cmdai index init")
   4  Chroma unreachable (or stopped mid-run), or a download server unreachable or silent
   5  verification failed (checksum, manifest or model mismatch)
   6  the index is in use by another cmdai (private server's data directory locked, or another serve on this data home)
   7  explain --check: the line uses an unknown option or a command not installed
   130  interrupted (Ctrl-C, SIGINT), after a clean stop: Chroma stopped, locks released
   143  terminated (SIGTERM), likewise; serve and mcp exit 0 on either (their normal stop)
   Under --json, an error is also printed on stdout as
   {"schema_version":1,"error":"<message>","exit_code":N}`

// UsageError marks a mistake in how the command was called (exit 2).
func UsageError(format string, a ...any) error {
	return clix.Usagef(format, a...)
}

// WithCode attaches an exit code to err.
func WithCode(code int, err error) error { return exitcode.With(code, err) }

// HasCode says whether err already carries its exit code (a usage error
// included), which a caller adding context must keep.
func HasCode(err error) bool { return exitcode.Has(err) }

// ExitCode maps an error returned by a command to the process exit code.
func ExitCode(err error) int { return exitcode.Of(err) }

// NetworkCode gives a failure to reach or hear from a server exit 4.
func NetworkCode(err error) error {
	if errors.Is(err, netwait.ErrNetwork) {
		return WithCode(ExitUnreachable, err)
	}
	return err
}
