// Package exitcode is the one table of cmdai's process exit codes, and
// errors that carry theirs: the answering layer gives an error its code
// where it knows the cause, the CLI exits with it, and serve sends it to
// its clients, so that all three agree.
package exitcode

import (
	"errors"

	"github.com/cmdai/cmdai/internal/clix"
)

// Exit codes are part of the interface: scripts and CI branch on them.
const (
	OK           = 0
	Failure      = 1
	Usage        = 2
	NoIndex      = 3
	Unreachable  = 4
	Verification = 5
	// Busy: another cmdai holds the private server's data directory.
	Busy = 6
	// UnknownOption: `cmdai explain --check` judged a line that uses an
	// option its command does not document, or a command that is not
	// installed (the answer was given; the line is what failed).
	UnknownOption = 7
)

// codedError carries an exit code with the error that caused it.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// With attaches an exit code to err (nil stays nil).
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

// Has says whether err already carries its exit code (a usage error
// included), which a caller adding context must keep.
func Has(err error) bool {
	var e *codedError
	return errors.As(err, &e) || clix.IsUsage(err)
}

// Of maps an error to the process exit code: its own, 2 for a usage
// error, else 1.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *codedError
	if errors.As(err, &e) {
		return e.code
	}
	if clix.IsUsage(err) {
		return Usage
	}
	return Failure
}
