// Command cmdai builds, ships and serves offline command-documentation
// indexes for AI shell assistants.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, cmdutil.SystemIO())
	stop()
	os.Exit(code)
}
