// Package indexer joins the man-page pipeline, the embedder and a Chroma
// collection: it builds a distribution's index, answers requests against
// it and reports its state.
package indexer
