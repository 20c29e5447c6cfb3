package cmdutil

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/netwait"
)

// StallTimeoutFlags are --stall-timeout, shared by the commands that
// download, and its old spelling --idle-timeout (CMDAI_IDLE_TIMEOUT, config
// key idle-timeout), hidden and noted on stderr when used: --idle-timeout
// is serve's exit-when-idle, one word with one meaning.
func StallTimeoutFlags(d *time.Duration, f *Factory) []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "stall-timeout", Usage: "give up a download that receives no byte for `DURATION` (the partial file is kept for a resume)", Value: netwait.DefaultIdleTimeout, EnvVars: []string{"CMDAI_STALL_TIMEOUT"}, Destination: d},
		&clix.Deprecated{Old: "idle-timeout", New: "stall-timeout", OldEnv: "CMDAI_IDLE_TIMEOUT", NewEnv: "CMDAI_STALL_TIMEOUT",
			Why: "--idle-timeout is serve's time to exit when idle", Out: errOut{f}},
	}
}

// ValidateFlags are --validate, "check, don't import" (import, download),
// and its old spelling --verify, hidden and noted on stderr when used.
func ValidateFlags(usage string, dest *bool, f *Factory) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "validate", Usage: usage, Destination: dest},
		&clix.Deprecated{Old: "verify", New: "validate", Bool: true, Why: "one name for check-only in import and download", Out: errOut{f}},
	}
}

// errOut is f's standard error, found when written to: flags are made
// before a test gives the factory its streams.
type errOut struct{ f *Factory }

func (w errOut) Write(p []byte) (int, error) {
	if w.f == nil || w.f.IO == nil || w.f.IO.ErrOut == nil {
		return len(p), nil
	}
	return w.f.IO.ErrOut.Write(p)
}
