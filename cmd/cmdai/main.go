// Command cmdai builds, ships and serves offline command-documentation
// indexes for AI shell assistants.
package main

import (
	"context"
	"os"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

func main() {
	ctx, stop := cmdutil.SignalContext(context.Background())
	code := run(ctx, os.Args, cmdutil.SystemIO())
	stop()
	os.Exit(code)
}
