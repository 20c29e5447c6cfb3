package sigctx

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// TestSignalContext: SIGTERM ends the context with a cause naming it
// (exit 143), which still reads as context.Canceled; stop ends it with
// no signal.
func TestSignalContext(t *testing.T) {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not end the context")
	}
	if code, ok := SignalExit(ctx); !ok || code != 143 {
		t.Errorf("SignalExit after SIGTERM = %d, %v; want 143", code, ok)
	}
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("cause %v is not context.Canceled", context.Cause(ctx))
	}
	ctx2, stop2 := SignalContext(context.Background())
	stop2()
	if _, ok := SignalExit(ctx2); ok || ctx2.Err() == nil {
		t.Errorf("stopped without a signal: SignalExit ok %v, err %v", ok, ctx2.Err())
	}
}
