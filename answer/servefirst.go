package answer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/firstuse"
	"github.com/cmdai/cmdai/search"
)

// ErrServeGone: the serve a call was sent to did not answer it (it
// stopped, or it holds another index). ServeFirst answers such a call
// itself.
var ErrServeGone = errors.New("cmdai serve did not answer")

// ServeFirst is the one rule of who answers, for every door that may ask
// a running serve (the CLI's read commands, MCP): each call goes to a
// running serve that holds the index asked for (warm: milliseconds),
// else to Local, this process (Degrade over OneShot for the CLI, over
// the MCP session's index). A call serve did not answer (it stopped
// mid-call, or holds another index: ErrServeGone, ErrNotHeld) is
// answered by Local: serve may start or stop during an agent's
// hours-long session, and a call must not fail because serve went.
// Whether a door may ask serve at all (its options may rule serve out)
// is the door's Serve: nil when the CLI's one rule, ServeRuledOut in
// cmd/cmdai/internal/cmdutil, says its options do.
type ServeFirst struct {
	// Serve gives the Answerer of the running serve that holds the index
	// asked for (serve.Remote), and done, told the call's error; ok false
	// when none runs. Nil: serve is never asked (--no-serve, or options
	// serve cannot answer with).
	Serve func(ctx context.Context) (a Answerer, done func(error), ok bool)
	Local Answerer
	// Limits are serve's: a request past them goes to Local, whose door
	// takes or refuses it with its own message (zero: no limit).
	Limits Limits
	// LockedWait bounds how long a call waits when Local finds the index
	// data held by another cmdai that lets go within seconds
	// (chroma.HeldBriefly: parallel first calls, or a serve starting
	// beside this one). It asks serve, then Local, again, backing off,
	// and takes whichever answers first; Local (Degrade) answers from
	// disk only when the wait is over, or at once when the holder keeps
	// the data (an MCP session, a writer). Zero: no wait.
	LockedWait time.Duration
	// StillHeld, when set, tells cheaply (loading nothing) whether the
	// index data is still held by a holder that lets go within seconds,
	// or a serve is starting: a waiting call then asks serve only, and
	// tries Local again once it is not.
	StillHeld func() bool
	// AnsweredHere, when set, is told after Local answered a call because
	// no serve ran (not when serve went mid-call), with whether the
	// answer shows an index a serve could hold: the CLI starts a serve in
	// the background then, for the calls after it.
	AnsweredHere func(holdable bool)
}

var _ Answerer = ServeFirst{}

// Limits are the most a door takes in one request. Each request type
// checks itself against them (Check); serve's handlers refuse past them,
// and ServeFirst sends such a request to Local instead of serve.
type Limits struct {
	// MaxK is the most commands one query may ask for.
	MaxK int
	// MaxRequestBytes is the longest request text (a query's, or the one
	// a command's docs are narrowed by).
	MaxRequestBytes int
	// MaxLine is the longest line explain takes (explain.MaxLine when
	// zero; a line must be UTF-8 to cross JSON as it is).
	MaxLine int
}

// Check says why q is past l (nil: within).
func (q QueryRequest) Check(l Limits) error {
	switch {
	case l.MaxRequestBytes > 0 && len(q.Request) > l.MaxRequestBytes:
		return fmt.Errorf("request of %d bytes: at most %d", len(q.Request), l.MaxRequestBytes)
	case l.MaxK > 0 && (q.K <= 0 || q.K > l.MaxK):
		return fmt.Errorf("k must be 1 to %d, not %d", l.MaxK, q.K)
	}
	return nil
}

// Check says why q is past l (nil: within).
func (q DocsRequest) Check(l Limits) error {
	if l.MaxRequestBytes > 0 && len(q.Request) > l.MaxRequestBytes {
		return fmt.Errorf("request of %d bytes: at most %d", len(q.Request), l.MaxRequestBytes)
	}
	return nil
}

// Check says why q is past l (nil: within).
func (q ExplainRequest) Check(l Limits) error {
	max := l.MaxLine
	if max <= 0 {
		max = explain.MaxLine
	}
	switch {
	case !utf8.ValidString(q.Line):
		return errors.New("the line is not UTF-8")
	case len(q.Line) > max:
		return fmt.Errorf("line of %d bytes is too long (at most %d)", len(q.Line), max)
	}
	return q.CheckPath()
}

// CheckPath says why q's Path is not one a caller's environment holds
// (nil: it is, or there is none).
func (q ExplainRequest) CheckPath() error {
	switch {
	case len(q.Path) > MaxPathBytes:
		return fmt.Errorf("path of %d bytes: at most %d", len(q.Path), MaxPathBytes)
	case strings.ContainsRune(q.Path, 0):
		return errors.New("path holds a NUL byte")
	}
	return nil
}

// ask answers one call: through serve when one answers and the request
// is within its limits, else Local (waiting for another holder of the
// data, LockedWait); holdable says whether Local's answer shows an index
// a serve could hold.
func ask[R any](ctx context.Context, p ServeFirst, within bool, f func(context.Context, Answerer) (R, error), holdable func(R) bool) (R, error) {
	if !within {
		return f(ctx, p.Local)
	}
	if res, ok, err := viaServe(ctx, p, f); ok {
		return res, err
	}
	if p.LockedWait <= 0 {
		res, err := f(ctx, p.Local)
		return answeredHere(p, holdable, res, err)
	}
	// While the wait lasts, Local does not answer from disk for a holder
	// that lets go within seconds: it says ErrLocked, and the call asks
	// again.
	waiting := context.WithValue(ctx, waitingKey{}, true)
	res, err := f(waiting, p.Local)
	// Backing off: each try here starts to load the models again, on the
	// cores the holder is answering with; none is made while StillHeld
	// says the holder still holds, or a serve is starting.
	wait := 100 * time.Millisecond
	if chroma.HeldBriefly(err) {
		defer firstuse.Begin(ctx, "waiting for another cmdai")()
	}
	for deadline := time.Now().Add(p.LockedWait); chroma.HeldBriefly(err) && ctx.Err() == nil; wait = min(2*wait, time.Second) {
		if !time.Now().Before(deadline) {
			res, err = f(ctx, p.Local) // the wait is over: from disk
			break
		}
		time.Sleep(min(wait, time.Until(deadline)))
		if res, ok, err := viaServe(ctx, p, f); ok {
			return res, err
		}
		if p.StillHeld != nil && p.StillHeld() {
			continue
		}
		res, err = f(waiting, p.Local)
	}
	return answeredHere(p, holdable, res, err)
}

// answeredHere tells AnsweredHere that Local answered.
func answeredHere[R any](p ServeFirst, holdable func(R) bool, res R, err error) (R, error) {
	if err == nil && p.AnsweredHere != nil {
		p.AnsweredHere(holdable(res))
	}
	return res, err
}

// waitingKey marks the context of a call that waits for a brief holder
// of the index data (ServeFirst.LockedWait): Degrade does not answer
// from disk for one.
type waitingKey struct{}

func waitingForHolder(ctx context.Context) bool {
	w, _ := ctx.Value(waitingKey{}).(bool)
	return w
}

// viaServe is serve's answer, ok true, when a serve answers the call;
// ok false when none runs. A call serve did not answer (ErrServeGone,
// ErrNotHeld) is answered by Local, ok true.
func viaServe[R any](ctx context.Context, p ServeFirst, f func(context.Context, Answerer) (R, error)) (R, bool, error) {
	var zero R
	if p.Serve == nil {
		return zero, false, nil
	}
	a, done, ok := p.Serve(ctx)
	if !ok {
		return zero, false, nil
	}
	res, err := f(ctx, a)
	done(err)
	if (errors.Is(err, ErrServeGone) || errors.Is(err, ErrNotHeld)) && ctx.Err() == nil {
		res, err = f(ctx, p.Local)
	}
	return res, true, err
}

func always[R any](R) bool { return true }

// Query implements Answerer.
func (p ServeFirst) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	return ask(ctx, p, q.Check(p.Limits) == nil, func(ctx context.Context, a Answerer) (QueryResult, error) { return a.Query(ctx, q) }, always)
}

// Docs implements Answerer.
func (p ServeFirst) Docs(ctx context.Context, q DocsRequest) (search.CommandDoc, error) {
	return ask(ctx, p, q.Check(p.Limits) == nil, func(ctx context.Context, a Answerer) (search.CommandDoc, error) { return a.Docs(ctx, q) }, always)
}

// Explain implements Answerer.
func (p ServeFirst) Explain(ctx context.Context, q ExplainRequest) (ExplainResult, error) {
	return ask(ctx, p, q.Check(p.Limits) == nil, func(ctx context.Context, a Answerer) (ExplainResult, error) { return a.Explain(ctx, q) }, always)
}

// Status implements Answerer. Only a status that shows this
// distribution's index counts as holdable (without one, a serve started
// now would only fail).
func (p ServeFirst) Status(ctx context.Context, q StatusRequest) (IndexStatus, error) {
	return ask(ctx, p, true, func(ctx context.Context, a Answerer) (IndexStatus, error) { return a.Status(ctx, q) }, hasCurrent)
}

func hasCurrent(st IndexStatus) bool {
	for _, c := range st.Collections {
		if c.Current {
			return true
		}
	}
	return false
}
