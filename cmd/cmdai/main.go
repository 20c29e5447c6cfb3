// Command cmdai builds, ships and serves offline command-documentation
// indexes for AI shell assistants.
package main

import (
	"context"
	"os"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/sigctx"
)

func main() {
	ctx, stop := sigctx.SignalContext(context.Background())
	code := run(ctx, os.Args, cmdutil.SystemIO())
	stop()
	os.Exit(code)
}
