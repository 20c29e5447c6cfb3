package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/search"
)

// RemoteAPI is what Remote needs of a running serve: Client.
type RemoteAPI interface {
	Query(ctx context.Context, q QueryRequest) (QueryResult, error)
	Docs(ctx context.Context, command, request string, strict bool) (search.CommandDoc, error)
	StatusOf(ctx context.Context, req StatusRequest) (IndexStatus, error)
	Explain(ctx context.Context, req ExplainRequest) (ExplainResult, error)
}

// Remote is the answer.Answerer of a running serve: the same answers as
// the index held in this process (session.Index) over the same index,
// from serve's warm searcher, and the same errors. Serve's error answer
// is its message (a 404: search.ErrUnknownCommand); a call serve did not
// answer is answer.ErrServeGone, which answer.PerCall answers itself.
type Remote struct {
	C RemoteAPI
	// Collection is the index serve holds (its health's), which Status
	// reports ("": serve's current one).
	Collection string
	// Socket names serve in Status's Holder.
	Socket string
	// Distro is the distribution asked for when a request names none
	// ("": serve's): a serve that holds another one (restarted so
	// mid-session) does not answer.
	Distro string
}

// Query implements answer.Answerer.
func (r Remote) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	if q.Distro == "" {
		q.Distro = r.Distro
	}
	res, err := r.C.Query(ctx, q)
	if err != nil {
		return QueryResult{}, remoteError(err)
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
func (r Remote) Status(ctx context.Context, q StatusRequest) (IndexStatus, error) {
	st, err := r.C.StatusOf(ctx, q)
	if err != nil {
		return IndexStatus{}, remoteError(err)
	}
	name := r.Collection
	if name == "" {
		name = st.Current
	}
	for _, c := range st.Collections {
		if c.Name == name {
			st.Current, st.Holder = name, "cmdai serve on "+r.Socket
			return st, nil
		}
	}
	return IndexStatus{}, fmt.Errorf("no index %s in the Chroma of cmdai serve (%s): build it with `cmdai index init`", name, r.Socket)
}

// Explain implements answer.Answerer.
func (r Remote) Explain(ctx context.Context, q ExplainRequest) (ExplainResult, error) {
	if q.Distro == "" {
		q.Distro = r.Distro
	}
	res, err := r.C.Explain(ctx, q)
	if err != nil {
		return ExplainResult{}, remoteError(err)
	}
	return res, nil
}

// remoteError is serve's error answer as the index held in this process
// would have returned it (the same message); a call serve did not
// answer is answer.ErrServeGone.
func remoteError(err error) error {
	var se *Error
	switch {
	case errors.As(err, &se) && se.Status == 404:
		return unknownCommand(se.Message)
	case errors.As(err, &se):
		return errors.New(se.Message)
	default:
		return fmt.Errorf("%w: %v", answer.ErrServeGone, err)
	}
}

// unknownCommand is serve's 404 for a command: search.ErrUnknownCommand
// with serve's message.
type unknownCommand string

func (u unknownCommand) Error() string        { return string(u) }
func (u unknownCommand) Is(target error) bool { return target == search.ErrUnknownCommand }
