// Package answer is cmdai's one answering layer: the operations every
// front door needs (search, one command's docs, explain a line, status)
// behind one interface, Answerer, one request type per operation, and
// the implementations that answer them: from the index held warm for
// serve (answer/warm), held for an MCP session (answer/session) or
// opened per call for the CLI (OneShot); from disk when Chroma is down
// (Degradable, marked degraded); and through a running serve
// (serve.Remote, chosen per call by ServeFirst, the one rule of who
// answers). `index query`, `explain`,
// `serve` and `mcp` parse their input, make one call here and print;
// every search reaches Search, every line Judge.
//
// Size: one room, answering: the request types, the search and judge
// every door runs, the answers from disk and the two rules over them
// (ServeFirst, Degrade) change together; the holders that keep an index
// open live in answer/warm and answer/session.
package answer

import (
	"context"
	"errors"

	"github.com/cmdai/cmdai/search"
)

// Answerer is what every front door asks. Implementations are safe for
// concurrent use; errors carry their exit code (internal/exitcode).
type Answerer interface {
	// Query returns the best commands for a request; a degraded answer
	// (keyword-only from disk, Chroma unreachable) says why.
	Query(ctx context.Context, q QueryRequest) (QueryResult, error)
	// Docs returns one command's records (search.ErrUnknownCommand when
	// the index does not hold it and it is not installed).
	Docs(ctx context.Context, q DocsRequest) (search.CommandDoc, error)
	// Explain judges a shell command line by the index's option records
	// (a line the shell cannot parse: an error wrapping
	// explain.ErrBadLine).
	Explain(ctx context.Context, q ExplainRequest) (ExplainResult, error)
	// Status describes the indexes on the Chroma that answers.
	Status(ctx context.Context, q StatusRequest) (IndexStatus, error)
}

// ErrNotHeld is an Answerer's answer to a request for an index it does
// not hold (another distribution): the caller answers it itself.
var ErrNotHeld = errors.New("serve does not hold that index")
