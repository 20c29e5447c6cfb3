// Package search answers requests against an index: semantic grouping of
// chunks into commands, BM25 keyword ranking (package bm25), their fusion,
// the one rule that turns a command's chunks into its score, one
// command's records, and the evaluation metrics. Package render writes
// its answers as text.
package search

import (
	"context"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/kwstore"
)

// Collection is what search needs of an index's collection. A
// *chroma.Collection is one; the ranking's unit tests use a small fake.
// It has no Get: the keyword side reads its chunks from the keyword index
// (package kwstore), so a query makes one round trip at most.
type Collection interface {
	// Name, Metadata, Count and All: what its keyword index is built from.
	kwstore.Records
	// Query returns the n records nearest to vec.
	Query(ctx context.Context, vec []float32, n int) ([]chroma.Hit, error)
}

var _ Collection = (*chroma.Collection)(nil)

// metaOf is a stored record's typed metadata.
func metaOf(r chroma.Record) index.Metadata { return index.FromChroma(r.Metadata) }
