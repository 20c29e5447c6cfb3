package main

import (
	"errors"
	"fmt"
)

// Exit codes are part of the interface: scripts and CI branch on them.
const (
	ExitOK           = 0
	ExitFailure      = 1
	ExitUsage        = 2
	ExitNoIndex      = 3
	ExitUnreachable  = 4
	ExitVerification = 5
)

const exitCodesHelp = `EXIT CODES:
   0  success
   1  failure
   2  usage error (bad flag or argument)
   3  no index yet (run "cmdai index init")
   4  Chroma unreachable (or stopped mid-run), or a download server unreachable or silent
   5  verification failed (checksum, manifest or model mismatch)
   6  the index is in use by another cmdai (private server's data directory locked)`

// exitError carries an exit code with the error that caused it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a mistake in how the command was called.
func usageError(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// withCode attaches an exit code to err.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitFailure
}
