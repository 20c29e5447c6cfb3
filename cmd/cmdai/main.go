// Command cmdai builds, ships and serves offline command-documentation
// indexes for AI shell assistants.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, SystemIO())
	stop()
	os.Exit(code)
}
