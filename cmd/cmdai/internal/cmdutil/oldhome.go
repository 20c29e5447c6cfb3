package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/homemove"
)

// MoveOldHome brings the index and the model an older cmdai kept under
// ~/.cache/cmdai over to the data root, once (package homemove), and
// says on stderr what it moved, or why it moved nothing. An old server
// still running on the old data is exit 6 (busy).
func (f *Factory) MoveOldHome(ctx context.Context) error {
	res, err := homemove.Run(ctx, f.Getenv)
	if msg := res.Message(); msg != "" {
		fmt.Fprintln(f.IO.ErrOut, "cmdai: "+msg)
	}
	if errors.Is(err, datalock.ErrLocked) {
		return WithCode(ExitBusy, err)
	}
	return err
}
