package explaincmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
)

// Judge explains line by lookup and times it: what a one-shot explain,
// serve and the MCP server answer alike. A line the shell cannot parse
// is a usage error (exit 2) saying where and what to fix.
func Judge(ctx context.Context, line, collection string, lookup explain.Lookup, onPath func(string) bool, start time.Time) (Result, error) {
	r, err := explain.Explain(ctx, line, lookup, explain.Options{OnPath: onPath})
	if errors.Is(err, explain.ErrBadLine) {
		return Result{}, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	if err != nil {
		return Result{}, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	return Result{Result: r, Collection: collection, Millis: ms}, nil
}

// FromDisk judges line by the keyword index on disk (each chunk's text
// and metadata, saved by an earlier query) when Chroma could not give
// the records (cause): the answer says it is degraded and why. A cause
// other than Chroma unreachable or held by another cmdai, or strict, is
// returned as it is; so is cause when no keyword index is on disk.
func FromDisk(ctx context.Context, getenv func(string) string, collection, line string, onPath func(string) bool, strict bool, start time.Time, cause error) (Result, error) {
	lookup, reason, err := DiskLookup(getenv, collection, strict, cause)
	if err != nil {
		return Result{}, err
	}
	res, err := Judge(ctx, line, collection, lookup, onPath, start)
	res.Degraded, res.DegradedReason = err == nil, reason
	if err != nil {
		res.DegradedReason = ""
	}
	return res, err
}

// DiskLookup is a lookup of the commands' records in the keyword index on
// disk, and the degraded reason to give with its answers, when Chroma
// could not be used (cause, see FromDisk). The man pages are not read:
// explain judges by the index alone.
func DiskLookup(getenv func(string) string, collection string, strict bool, cause error) (explain.Lookup, string, error) {
	if strict || !degradable(cause) {
		return nil, "", cause
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	dir, err := config.KeywordDir(getenv)
	if err != nil {
		return nil, "", cause
	}
	ix, path, err := kwstore.Saved(dir, collection)
	if err != nil {
		return nil, "", fmt.Errorf("%w\n  and no keyword index on disk to judge by either: %v", cause, err)
	}
	lookup := func(_ context.Context, command string) (search.CommandDoc, error) {
		return search.DocsFromKeywords(ix, command)
	}
	return lookup, search.DegradedReason(cause, "option records from the keyword index "+path), nil
}

// degradable: Chroma could not be reached, or another cmdai holds its
// data; anything else (no index) is not helped by disk.
func degradable(cause error) bool {
	code := cmdutil.ExitCode(cause)
	return code == cmdutil.ExitUnreachable || code == cmdutil.ExitBusy
}

// OnPath is a $PATH lookup on this machine when the index that judges is
// this machine's own distribution's, else nil: an imported index of
// another distribution says nothing of what is installed here, and a
// command it lacks is then "not installed" there, not "undocumented"
// because of this machine's PATH.
func OnPath(ctx context.Context, info distro.Info) func(string) bool {
	here, err := distro.Detect(ctx)
	if err != nil || here.CollectionName() != info.CollectionName() {
		return nil
	}
	return func(name string) bool {
		_, err := exec.LookPath(name)
		return err == nil
	}
}

// explainHere judges the line in this process. The collection is opened
// on the first lookup, so a line the shell cannot parse, or one of
// builtins only, starts no Chroma; no model is loaded at all.
func explainHere(ctx context.Context, opts *Options) (Result, error) {
	start := time.Now()
	info, err := cmdutil.ResolveDistro(ctx, opts.Distro, nil)
	if err != nil {
		return Result{}, err
	}
	ix := &lazyIndex{base: ctx, opts: opts, collection: info.CollectionName()}
	defer ix.close()
	res, err := Judge(ctx, opts.Line, info.CollectionName(), explain.CachedLookup(ix.lookup), OnPath(ctx, info), start)
	if err != nil {
		// the open's own error carries its exit code and fix, whatever
		// Explain made of it
		if oerr := ix.openErr(); oerr != nil {
			return Result{}, oerr
		}
		return Result{}, err
	}
	if reason := ix.degradedReason(); reason != "" {
		res.Degraded, res.DegradedReason = true, reason
	}
	return res, nil
}

// lazyIndex opens the distribution's collection once, on the first
// lookup (Chroma alone: the collection's records are all explain reads),
// or the keyword index on disk when Chroma cannot be reached.
type lazyIndex struct {
	// base is the command's context: the Chroma server started for the
	// first lookup lives as long as the command, not that lookup.
	base       context.Context
	opts       *Options
	collection string

	mu       sync.Mutex
	opened   bool
	l        explain.Lookup
	err      error
	degraded string
	conn     *cmdutil.Connection
}

func (x *lazyIndex) lookup(ctx context.Context, command string) (search.CommandDoc, error) {
	x.mu.Lock()
	if !x.opened {
		x.opened = true
		x.l, x.err = x.open(x.base)
	}
	l, err := x.l, x.err
	x.mu.Unlock()
	if err != nil {
		return search.CommandDoc{}, err
	}
	return l(ctx, command)
}

// open connects to Chroma (or a running serve's, under its lease) and
// opens the collection; when Chroma cannot be reached, the keyword
// index on disk answers. Callers hold x.mu.
func (x *lazyIndex) open(ctx context.Context) (explain.Lookup, error) {
	conn, err := x.opts.Connect(ctx, x.opts.Chroma)
	if err != nil {
		l, reason, err := DiskLookup(x.opts.Getenv, x.collection, x.opts.Strict, err)
		x.degraded = reason
		return l, err
	}
	x.conn = conn
	coll, err := cmdutil.OpenIndex(ctx, conn, x.collection)
	if err != nil {
		return nil, err
	}
	if err := cmdutil.Answerable(ctx, coll); err != nil {
		return nil, err
	}
	return search.Searcher{Coll: coll}.Docs, nil
}

func (x *lazyIndex) openErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

func (x *lazyIndex) degradedReason() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.degraded
}

// close stops the private Chroma server, if the lookup started one.
func (x *lazyIndex) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.conn.Close()
	x.conn = nil
}
