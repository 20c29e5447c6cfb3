// Package afterwrite is what every command that writes an index (init,
// refresh, import, download) does once it is written, so that the first
// answer after it is as fast as the tenth: build the caches answering
// reads (the keyword index, the records' vectors), keep the local copy
// an index deleted behind cmdai's back is put back from, and start the
// background serve where read commands would start one.
package afterwrite

import (
	"context"
	"errors"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/firstuse"
	"github.com/cmdai/cmdai/ship"
)

// serveReady bounds the wait for the serve Run starts to answer from the
// index: its start takes 1-3 s here (the model, the index's caches).
const serveReady = 30 * time.Second

// Run readies collection, just written on conn, for answering (Prepare,
// KeepCopy), closes conn (the private server's data is then free for a
// serve to start on) and, when auto says read commands would start one,
// starts the background serve and waits for it to answer. The index is
// written either way: each failure is a warning on stderr.
func Run(ctx context.Context, f *cmdutil.Factory, conn *connect.Connection, collection string, auto cmdutil.AutoServeOptions) {
	if conn == nil || conn.Store == nil {
		return
	}
	if f.IO.ErrTTY {
		// short: a terminal of 40 columns holds it on one line
		f.Say("readying the index for answers...\n")
	}
	if err := Prepare(ctx, f, conn, collection); err != nil {
		f.Say("warning: %v\n  the index is written; the first answer builds what is missing\n", err)
	}
	if err := KeepCopy(ctx, f, conn, collection); err != nil {
		f.Say("warning: %v\n  the index is written, but one deleted behind cmdai's back cannot be put back until a copy is kept (the next write, or serve, tries again)\n", err)
	}
	conn.Close()
	// the background serve holds this machine's index, which read
	// commands ask for without --distro: one holding another would
	// answer none of them, and keep theirs from starting
	if here, err := cmdutil.ResolveDistro(ctx, "", f.DetectDistro); err != nil || here.CollectionName() != collection {
		return
	}
	start := f.AutoStart(auto.For(""))
	if start == nil {
		return
	}
	if pid := start(); pid > 0 {
		waitForServe(ctx, f)
	}
}

// Prepare builds the caches answering from collection reads
// (answer.Prepare) in this data home's keyword directory.
func Prepare(ctx context.Context, f *cmdutil.Factory, conn *connect.Connection, collection string) error {
	dir, err := config.KeywordDir(f.Getenv)
	if err != nil {
		return err
	}
	coll, err := conn.Store.OpenCollection(chroma.WithoutRestore(ctx), collection)
	if err != nil {
		return err
	}
	return answer.Prepare(ctx, coll, dir)
}

// KeepCopy keeps, after a write of collection on conn, the sealed local
// copy an index deleted behind cmdai's back is put back from, and says
// so when it made one (ship.KeepAfterWrite).
func KeepCopy(ctx context.Context, f *cmdutil.Factory, conn *connect.Connection, collection string) error {
	dir, err := config.CopyDir(f.Getenv)
	if err != nil {
		return err
	}
	key, err := f.RecordKey()
	if err != nil {
		return err
	}
	kept, iso, ok, err := ship.KeepAfterWrite(ctx, conn, key, dir, collection)
	if ok && !kept.Current {
		f.Say("kept a sealed copy of %s in %s (%d records, %.1f MB, %.1f s): other local users can reach the private Chroma here (%s; see `cmdai doctor`), and an index deleted through it is put back from this copy\n",
			collection, kept.Path, kept.Records, float64(kept.Bytes)/1e6, kept.Took.Seconds(), iso.Exposed)
	}
	return err
}

// waitForServe waits until the serve just started answers with the
// index open (health not degraded), up to serveReady; a serve that does
// not is the first answer's to wait for or replace.
func waitForServe(ctx context.Context, f *cmdutil.Factory) {
	ctx, cancel := context.WithTimeout(ctx, serveReady)
	defer cancel()
	defer firstuse.Begin(ctx, "starting the background serve")()
	for {
		if c, ok := f.ServeClient(ctx); ok {
			h, err := c.Health(ctx)
			c.Close()
			if err == nil && !h.Degraded {
				return
			}
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				f.Say("warning: the background serve did not answer within %s; the first answers may wait for it (`cmdai doctor` says why)\n", serveReady)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
