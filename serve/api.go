// Package serve is the warm process's HTTP API over a Unix socket: `cmdai
// serve` holds an index (its Chroma server, the model, the keyword index)
// behind a Backend and answers queries, status and health as JSON; Dial
// gives other processes a client of it, and a writer's lease makes it
// step aside while an index is written.
package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
)

// QueryRequest is the body of POST /v1/query: the options of `cmdai index
// query`.
type QueryRequest struct {
	Request   string `json:"request"`
	K         int    `json:"k,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Context   bool   `json:"with_context,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	// Matches is how many matches of each command to show (0: the
	// default, search.DefaultMatches); Full shows every match, whole.
	Matches int  `json:"matches_count,omitempty"`
	Full    bool `json:"full,omitempty"`
	// Distro is the distribution whose index is asked for ("": the one
	// serve holds). Another one is answered 421: the CLI asks it itself.
	Distro string `json:"distro,omitempty"`
	// Strict: when Chroma cannot be reached, answer the error (exit 4)
	// instead of a keyword-only answer from the keyword index on disk.
	Strict bool `json:"strict,omitempty"`
}

// QueryResult is what `index query --json` prints, and the answer of
// POST /v1/query (which adds Context when asked).
type QueryResult struct {
	Request    string              `json:"request"`
	Collection string              `json:"collection"`
	Commands   []search.CommandHit `json:"commands"`
	Millis     float64             `json:"query_ms"`
	// Degraded: Chroma could not be reached; the answer is keyword-only,
	// from the keyword index on disk, for the reason given.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
	// Context is the --context block, in serve's answers that ask for it.
	Context string `json:"context,omitempty"`
}

// ExplainRequest is the body of POST /v1/explain: one shell command
// line, as `cmdai explain` takes it.
type ExplainRequest struct {
	Line string `json:"line"`
	// Distro is the distribution whose index judges the line ("": the
	// one serve holds). Another one is answered 421, as queries are.
	Distro string `json:"distro,omitempty"`
	// Strict: when Chroma cannot be reached, answer the error (exit 4)
	// instead of judging by the keyword index on disk.
	Strict bool `json:"strict,omitempty"`
}

// ExplainResult is what `cmdai explain --json` prints, and the answer of
// POST /v1/explain: the line's explain.Result, the index that judged it
// and how long that took.
type ExplainResult struct {
	explain.Result
	Collection string  `json:"collection"`
	Millis     float64 `json:"explain_ms"`
	// Degraded: Chroma could not be reached; the commands' option records
	// came from the keyword index on disk, for the reason given.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
}

// IndexStatus is what `index status --json` prints, and the answer of
// GET /v1/status.
type IndexStatus struct {
	Server struct {
		URL     string `json:"url"`
		Mode    string `json:"mode"`
		Version string `json:"version"`
		Healthy bool   `json:"healthy"`
	} `json:"server"`
	Current     string                     `json:"current_collection"`
	Collections []builder.CollectionStatus `json:"collections"`
}

// StatusRequest is what GET /v1/status asks: ?detailed=true lists the
// stale commands; ?path=...&manpath=... is the caller's environment.
type StatusRequest struct {
	Detailed bool
	// Env is the caller's $PATH and $MANPATH, against which staleness is
	// judged (the commands installed for the caller); nil, a request
	// without path, judges against serve's own environment.
	Env *ScanEnv
}

// ScanEnv is the part of a caller's environment a scan of the installed
// commands reads, sent as it is (an empty Path finds no command). A
// relative $MANPATH entry is refused: serve does not know the caller's
// working directory (the CLI then works out its status itself).
type ScanEnv struct {
	Path    string
	ManPath string
}

// Getenv reads e as os.Getenv reads the environment, for the scan.
func (e ScanEnv) Getenv(key string) string {
	switch key {
	case "PATH":
		return e.Path
	case "MANPATH":
		return e.ManPath
	}
	return ""
}

// Health is the answer of GET /v1/health.
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
}

// Lease is what a writer gets from POST /v1/lease: the Chroma to write
// through. The lease lasts as long as the writer's connection.
type Lease struct {
	ChromaURL string `json:"chroma_url"`
	DataDir   string `json:"data_dir,omitempty"`
}

// ErrorBody is every error answer: the message the CLI prints and the
// exit code it exits with.
// It is the object the CLI prints for an error under --json.
type ErrorBody = jsonout.Error

// Backend is what serve holds warm. Implementations are safe for
// concurrent use.
type Backend interface {
	Query(ctx context.Context, q QueryRequest) (QueryResult, error)
	// Docs is one command's records (search.ErrUnknownCommand when the
	// index does not hold it), for MCP's command_docs through serve. When
	// Chroma cannot be reached they may come from disk (a degraded doc);
	// strict asks for Chroma's error instead.
	Docs(ctx context.Context, command string, strict bool) (search.CommandDoc, error)
	Status(ctx context.Context, req StatusRequest) (IndexStatus, error)
	// Explain judges a command line against the index's option records
	// (a line the shell cannot parse: an error wrapping
	// explain.ErrBadLine), from disk when Chroma cannot be reached, as
	// Docs.
	Explain(ctx context.Context, req ExplainRequest) (ExplainResult, error)
	// Where says which collection and Chroma serve holds.
	Where() Health
	// Reload re-reads the collection and its keyword index after a
	// writer released its lease.
	Reload(ctx context.Context) error
	Close()
}

// ErrNotHeld is a Backend's answer to a query for an index it does not
// hold (another distribution): the caller answers it itself.
var ErrNotHeld = errors.New("serve does not hold that index")

// ErrNotRunning: no serve answers on the socket (none, a stale socket,
// a refused connection). Callers do the work themselves.
var ErrNotRunning = errors.New("no cmdai serve is running")

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
