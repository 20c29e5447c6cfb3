// Package serve is the warm process's HTTP API over a Unix socket: `cmdai
// serve` holds an index (its Chroma server, the model, the keyword index)
// behind a Backend (the answering layer's Answerer, answer/warm) and
// answers queries, docs, explain, status and health as JSON; Dial gives
// other processes a client of it, and a writer's lease makes it step
// aside while an index is written.
//
// Size: one room, the wire between processes: the server's handlers and
// the client that reads them (Client, Remote, Finder) share the request
// types, the error body and the limits, and change together.
package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cmdai/cmdai/answer"
)

// The requests and answers of the API are the answering layer's
// (answer.QueryRequest and the others): one type per operation, shared
// by the CLI, this API and the MCP tools.

// Health is the answer of GET /v1/health: what the Backend holds
// (answer.Holding) and serve's own state (its pid, a writer's lease).
type Health struct {
	OK         bool   `json:"ok"`
	PID        int    `json:"pid"`
	Collection string `json:"collection"`
	// ChromaURL and DataDir say which Chroma serve uses: DataDir is its
	// private server's data ("" with --chroma-url).
	ChromaURL string `json:"chroma_url"`
	DataDir   string `json:"data_dir,omitempty"`
	// Writing: a writer holds the lease; queries wait for it.
	Writing bool `json:"writing"`
	// Degraded: serve has no Chroma (it could not reach or start it) and
	// answers queries keyword-only from disk; DegradedReason says why.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
	// Background: started by a command in the background (`serve
	// --background`), not by hand. IdleUntil is when serve exits unless
	// a request comes first (zero: never idle-exits).
	Background bool      `json:"background,omitempty"`
	IdleUntil  time.Time `json:"idle_until,omitzero"`
	// Build is the build of serve's binary (buildid.Self): a door of
	// another build never uses its answers (Finder). A serve of a build
	// before it was kept gives none.
	Build string `json:"build_id,omitempty"`
	// Models names the models serve started with (the CLI's
	// cmdutil.Factory.ModelsID): a door that would answer with others (a
	// model or reranker imported since) does not use its answers.
	Models string `json:"models_id,omitempty"`
}

// Lease is what a writer gets from POST /v1/lease: the Chroma to write
// through. The lease lasts as long as the writer's connection.
type Lease struct {
	ChromaURL string `json:"chroma_url"`
	DataDir   string `json:"data_dir,omitempty"`
}

// Backend is what serve holds warm: the answering layer's Answerer (the
// handlers ask it with the shared request types), plus what a
// long-lived holder of an index does. Implementations are safe for
// concurrent use.
type Backend interface {
	answer.Answerer
	// Where says which collection and Chroma serve holds, or why it
	// runs without Chroma (health, the writer's lease).
	Where() answer.Holding
	// Reload re-reads the collection and its keyword index after a
	// writer released its lease.
	Reload(ctx context.Context) error
	Close()
}

// ErrNotRunning: no serve answers on the socket (none, a stale socket,
// a refused connection). Callers do the work themselves.
var ErrNotRunning = errors.New("no cmdai serve is running")

// ErrUnresponsive: a serve listens on the socket (it took the
// connection) but did not answer its health in time: stopped (SIGSTOP,
// a suspended terminal) or frozen. It is ErrNotRunning too: nobody waits
// for it as for a serve starting, since a starting one is not listening
// yet.
var ErrUnresponsive = fmt.Errorf("%w: a cmdai serve listens but does not answer (stopped or frozen)", ErrNotRunning)

// Error is an error answer of serve, as the client returns it.
type Error struct {
	Status   int
	Message  string
	ExitCode int
}

func (e *Error) Error() string { return e.Message }

// badRequest is a client's mistake: HTTP 400, exit code 2.
func badRequest(format string, a ...any) *Error {
	return &Error{Status: 400, Message: fmt.Sprintf(format, a...), ExitCode: 2}
}
