// Package sigctx ends a context on SIGINT or SIGTERM with the signal as its
// cause, so that a command stops gracefully and exits 128 + its number.
package sigctx

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalError is the cause of a context ended by SIGINT or SIGTERM: what
// makes an interrupted command exit 128 + the signal's number, as shells
// report a process killed by it (130 for Ctrl-C, 143 for SIGTERM).
type SignalError struct{ Signal syscall.Signal }

func (e *SignalError) Error() string { return e.Signal.String() }

// Is makes the cause match context.Canceled, as signal.NotifyContext's
// does.
func (e *SignalError) Is(target error) bool { return target == context.Canceled }

// ExitCode is 128 + the signal's number.
func (e *SignalError) ExitCode() int { return 128 + int(e.Signal) }

// SignalContext is signal.NotifyContext for SIGINT and SIGTERM, except
// that its cause is a *SignalError naming the signal (NotifyContext's
// cause is an unexported type, its signal only in the message). The
// first signal ends the context, and the command stops gracefully
// (servers stopped, locks released); later ones are ignored until stop.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			if sig, ok := s.(syscall.Signal); ok {
				cancel(&SignalError{Signal: sig})
			} else {
				cancel(fmt.Errorf("%v: %w", s, context.Canceled))
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// SignalExit is the exit code of a run whose context a signal ended
// (ok false when none did).
func SignalExit(ctx context.Context) (code int, ok bool) {
	if e, isSig := context.Cause(ctx).(*SignalError); isSig {
		return e.ExitCode(), true
	}
	return 0, false
}
