package adapter

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/cmdai/cmdai/embed"
)

// FromDir reads the adapter shipped in a reranker's directory, for
// vectors of dims (the manifest's): nil and no error when there is none
// (a reranker built before it), embed.ErrCorruptReranker when the file
// is there but is not a whole adapter of that width.
func FromDir(dir string, dims int) (*Adapter, error) {
	a, err := Read(filepath.Join(dir, FileName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w: the query adapter: %v", embed.ErrCorruptReranker, err)
	case a.Dims() != dims:
		return nil, fmt.Errorf("%w: %s maps vectors of %d, the reranker's model gives %d; rebuild it with `make reranker`", embed.ErrCorruptReranker, filepath.Join(dir, FileName), a.Dims(), dims)
	}
	return a, nil
}

// attached is a reranker that carries its query adapter.
type attached struct {
	embed.Embedder
	a *Adapter
}

// Attach returns the reranker e carrying adapter a (e itself when a is
// nil), so that the one value that says "the reranker is on" also says
// which adapter came with it.
func Attach(e embed.Embedder, a *Adapter) embed.Embedder {
	if a == nil || e == nil {
		return e
	}
	return attached{e, a}
}

// Of is the adapter attached to e, or nil.
func Of(e embed.Embedder) *Adapter {
	if at, ok := e.(attached); ok {
		return at.a
	}
	return nil
}
