package cmdutil

import (
	"fmt"
	"io"
	"os"
)

// Say tells stderr (serve's log, for serve) what cmdai did on its own.
func (f *Factory) Say(format string, a ...any) { fmt.Fprintf(f.errOut(), format, a...) }

func (f *Factory) errOut() io.Writer {
	if f.IO != nil && f.IO.ErrOut != nil {
		return f.IO.ErrOut
	}
	return os.Stderr
}
