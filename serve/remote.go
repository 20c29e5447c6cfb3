package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
)

// RemoteAPI is what Remote needs of a running serve: Client.
type RemoteAPI interface {
	Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error)
	Docs(ctx context.Context, command, request string, strict bool) (search.CommandDoc, error)
	StatusOf(ctx context.Context, req answer.StatusRequest) (answer.IndexStatus, error)
	Explain(ctx context.Context, req answer.ExplainRequest) (answer.ExplainResult, error)
}

// Remote is the answer.Answerer of a running serve: the same answers as
// the index held in this process over the same index, from serve's warm
// searcher, and the same errors. Serve's error answer is its message
// with its exit code (a 404 of a command: search.ErrUnknownCommand); a
// call serve did not answer is answer.ErrServeGone, and one for an index
// it does not hold answer.ErrNotHeld, which answer.ServeFirst answers
// itself.
type Remote struct {
	C RemoteAPI
	// Collection is the index serve holds (its health's): Status reports
	// it, and says what to run when serve's Chroma lacks it ("": serve's
	// status as it is).
	Collection string
	// Socket names serve in Status's Holder.
	Socket string
	// Distro is the distribution asked for when a request names none
	// ("": serve's): a serve that holds another one (restarted so
	// mid-session) does not answer.
	Distro string
}

// Query implements answer.Answerer.
func (r Remote) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	if q.Distro == "" {
		q.Distro = r.Distro
	}
	res, err := r.C.Query(ctx, q)
	if err != nil {
		return answer.QueryResult{}, remoteError(err)
	}
	return res, nil
}

// Docs implements answer.Answerer.
func (r Remote) Docs(ctx context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	doc, err := r.C.Docs(ctx, q.Command, q.Request, q.Strict)
	if err != nil {
		return search.CommandDoc{}, remoteError(err)
	}
	return doc, nil
}

// Status implements answer.Answerer: serve's status, its Current the
// collection serve holds (an error saying what to run when its Chroma
// lacks it), held by serve on Socket.
func (r Remote) Status(ctx context.Context, q answer.StatusRequest) (answer.IndexStatus, error) {
	st, err := r.C.StatusOf(ctx, q)
	if err != nil {
		return answer.IndexStatus{}, remoteError(err)
	}
	st.Holder = "cmdai serve on " + r.Socket
	if r.Collection == "" {
		return st, nil
	}
	for _, c := range st.Collections {
		if c.Name == r.Collection {
			st.Current = r.Collection
			return st, nil
		}
	}
	return answer.IndexStatus{}, fmt.Errorf("no index %s in the Chroma of cmdai serve (%s): build it with `cmdai index init`", r.Collection, r.Socket)
}

// Explain implements answer.Answerer.
func (r Remote) Explain(ctx context.Context, q answer.ExplainRequest) (answer.ExplainResult, error) {
	if q.Distro == "" {
		q.Distro = r.Distro
	}
	res, err := r.C.Explain(ctx, q)
	if err != nil {
		return answer.ExplainResult{}, remoteError(err)
	}
	return res, nil
}

// remoteError is serve's error answer as the index held in this process
// would have returned it: the same message and exit code. A query for
// an index serve does not hold stays answer.ErrNotHeld; a call serve did
// not answer is answer.ErrServeGone.
func remoteError(err error) error {
	var se *Error
	switch {
	case errors.Is(err, answer.ErrNotHeld):
		return err
	case errors.As(err, &se) && se.Status == http.StatusNotFound && se.ExitCode == exitcode.Usage:
		return exitcode.With(se.ExitCode, unknownCommand(se.Message))
	case errors.As(err, &se):
		return exitcode.With(se.ExitCode, errors.New(se.Message))
	default:
		return fmt.Errorf("%w: %v", answer.ErrServeGone, err)
	}
}

// unknownCommand is serve's 404 for a command: search.ErrUnknownCommand
// with serve's message.
type unknownCommand string

func (u unknownCommand) Error() string        { return string(u) }
func (u unknownCommand) Is(target error) bool { return target == search.ErrUnknownCommand }

// Conn is what a door needs of a running serve: Client.
type Conn interface {
	RemoteAPI
	Health(ctx context.Context) (Health, error)
	Socket() string
	Close()
}

// Finder finds the running serve a door asks (answer.ServeFirst's
// Serve): one that answers its health, is of this process's build and
// holds the index asked for. It
// keeps the connection between calls (one, kept alive) until a call
// finds serve gone; then the next call looks for a serve again.
type Finder struct {
	// Dial reaches the serve of this data home, if one runs.
	Dial func(ctx context.Context) (Conn, bool)
	// Distro is the distribution asked for ("": this machine's, when
	// Resolve is set; serve's own, when not).
	Distro string
	// Resolve gives the distribution asked for, whose index serve must
	// hold (nil: the one Distro names, any when it is "").
	Resolve func(ctx context.Context) (distro.Info, error)
	// Once: close the connection after each call (a one-shot command,
	// which makes one or two), rather than keep it for the next.
	Once bool
	// OtherBuild is told of a serve of another build than this
	// process's (buildid.Self), whose answers are never used: it may stop
	// it, and says whether it did (the door then answers itself and may
	// start one of its own build; else it answers itself and starts none).
	// nil: answer here, start none.
	OtherBuild func(socket string, h Health) (stopped bool)
	// Models names the models this door would answer with (nil: any
	// serve's do): a serve that says others (Health.Models; one that says
	// none is judged by its build alone) is treated as one of another
	// build (OtherBuild).
	Models func() string
	// Held says whether a serve holds its lock although Dial found none
	// answering (it waited for one starting): stopped or frozen. The door
	// then answers itself at once, waiting for nothing, starting none
	// (nil: never).
	Held func() bool

	mu         sync.Mutex
	c          Conn
	collection string
}

// Answerer is serve's Answerer when a serve holding the distribution's
// index answers; done, told the call's error, forgets a serve that went.
func (f *Finder) Answerer(ctx context.Context) (answer.Answerer, func(error), bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.c == nil {
		c, ok := f.Dial(ctx)
		if !ok && f.Held != nil && f.Held() {
			return notHeld{}, func(error) {}, true
		}
		if !ok {
			return nil, nil, false
		}
		h, err := c.Health(ctx)
		if err != nil {
			c.Close()
			return nil, nil, false
		}
		if h.Build != buildid.Self() || (f.Models != nil && h.Models != "" && h.Models != f.Models()) {
			// its ranking, checks and request schema may not be ours
			c.Close()
			if f.OtherBuild != nil && f.OtherBuild(c.Socket(), h) {
				return nil, nil, false
			}
			return notHeld{}, func(error) {}, true
		}
		if !f.wants(ctx, h.Collection) {
			// a serve runs, for another index: the door answers itself,
			// and starts no second serve
			c.Close()
			return notHeld{}, func(error) {}, true
		}
		f.c, f.collection = c, h.Collection
	}
	c := f.c
	done := func(err error) {
		if f.Once || errors.Is(err, answer.ErrServeGone) {
			f.drop(c)
		}
	}
	collection := f.collection
	if f.Resolve == nil {
		collection = "" // serve's status as it is: the caller asked for none
	}
	return Remote{C: c, Collection: collection, Socket: c.Socket(), Distro: f.Distro}, done, true
}

// wants says whether serve's collection is the one asked for. A
// distribution that does not parse is not: Local refuses it with the
// door's own usage error.
func (f *Finder) wants(ctx context.Context, collection string) bool {
	if f.Resolve != nil {
		info, err := f.Resolve(ctx)
		return err == nil && info.CollectionName() == collection
	}
	if f.Distro == "" {
		return true
	}
	info, err := distro.Parse(f.Distro)
	return err == nil && info.CollectionName() == collection
}

// Close forgets the serve found, if any.
func (f *Finder) Close() { f.drop(nil) }

// drop forgets the client c (nil: any).
func (f *Finder) drop(c Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.c != nil && (c == nil || f.c == c) {
		f.c.Close()
		f.c = nil
	}
}

// notHeld is a running serve that holds another index than the one
// asked for: every call is answer.ErrNotHeld.
type notHeld struct{}

func (notHeld) Query(context.Context, answer.QueryRequest) (answer.QueryResult, error) {
	return answer.QueryResult{}, answer.ErrNotHeld
}
func (notHeld) Docs(context.Context, answer.DocsRequest) (search.CommandDoc, error) {
	return search.CommandDoc{}, answer.ErrNotHeld
}
func (notHeld) Explain(context.Context, answer.ExplainRequest) (answer.ExplainResult, error) {
	return answer.ExplainResult{}, answer.ErrNotHeld
}
func (notHeld) Status(context.Context, answer.StatusRequest) (answer.IndexStatus, error) {
	return answer.IndexStatus{}, answer.ErrNotHeld
}
