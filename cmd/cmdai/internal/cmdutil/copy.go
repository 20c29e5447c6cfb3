package cmdutil

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/ship"
)

// KeepCopy keeps, after a write of collection on conn, the sealed local
// copy an index deleted behind cmdai's back is put back from, and says
// so when it made one (ship.KeepAfterWrite).
func (f *Factory) KeepCopy(ctx context.Context, conn *connect.Connection, collection string) error {
	dir, err := config.CopyDir(f.getenv())
	if err != nil {
		return err
	}
	key, err := f.RecordKey()
	if err != nil {
		return err
	}
	kept, iso, ok, err := ship.KeepAfterWrite(ctx, conn, key, dir, collection)
	if ok && !kept.Current {
		fmt.Fprintf(f.errOut(), "kept a sealed copy of %s in %s (%d records, %.1f MB, %.1f s): other local users can reach the private Chroma here (%s; see `cmdai doctor`), and an index deleted through it is put back from this copy\n",
			collection, kept.Path, kept.Records, float64(kept.Bytes)/1e6, kept.Took.Seconds(), iso.Exposed)
	}
	return err
}

// say tells stderr (serve's log, for serve) what cmdai did on its own.
func (f *Factory) say(format string, a ...any) { fmt.Fprintf(f.errOut(), format, a...) }

func (f *Factory) errOut() io.Writer {
	if f.IO != nil && f.IO.ErrOut != nil {
		return f.IO.ErrOut
	}
	return os.Stderr
}
