package cmdutil

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/internal/netx"
)

// IdleTimeoutFlag is --idle-timeout, shared by the commands that download.
func IdleTimeoutFlag(d *time.Duration) cli.Flag {
	return &cli.DurationFlag{Name: "idle-timeout", Usage: "give up a download that receives no byte for `DURATION` (the partial file is kept for a resume)", Value: netx.DefaultIdleTimeout, EnvVars: []string{"CMDAI_IDLE_TIMEOUT"}, Destination: d}
}
