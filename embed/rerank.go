package embed

import (
	"context"
	"errors"
)

// RerankerName is the second model learned mode can use: all-MiniLM-L6-v2
// fine-tuned here on the train requests (scripts/reranker), so that a
// request lands nearer its command's one-line description. The index
// keeps its all-MiniLM-L6-v2 vectors; the reranker embeds only the
// request and the descriptions, and learned mode ranks with their cosine
// as two more features (search.Candidates).
const RerankerName = "cmdai-reranker"

// ErrNoReranker means the reranker is not installed where it was looked for.
var ErrNoReranker = errors.New("reranker not installed")

// ErrCorruptReranker means an installed reranker file does not match its
// manifest, or the manifest is not the reranker's.
var ErrCorruptReranker = errors.New("reranker files do not match their manifest")

var reranker = kind{RerankerName, "reranker", ErrNoReranker, ErrCorruptReranker,
	"rebuild it with `make reranker` in a cmdai checkout or reinstall with `make install`; `cmdai doctor` checks it (without it, learned mode ranks as before it)"}

// OpenReranker verifies the installed reranker in o.Dir and starts a
// backend for it, as Open does for the embedding model.
func OpenReranker(ctx context.Context, o Options) (Embedder, error) {
	return open(ctx, o, reranker)
}

// VerifyReranker checks the reranker in dir as Verify checks the model.
func VerifyReranker(dir, variant string) (Manifest, error) { return verify(dir, variant, reranker) }
