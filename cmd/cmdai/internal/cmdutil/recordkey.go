package cmdutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/index"
)

// RecordKey is the key that authenticates the index's records, in the
// data directory (index.KeyFileName, made 0600 on the first write): every
// connection the commands open carries it, so that no record Chroma
// holds is shown unless cmdai wrote it. One per process, so that a
// tampered index is told on stderr once.
func (f *Factory) RecordKey() (*index.RecordKey, error) {
	root, err := config.DataRoot(f.getenv())
	if err != nil {
		return nil, err
	}
	var warn io.Writer = os.Stderr
	if f.IO != nil && f.IO.ErrOut != nil {
		warn = f.IO.ErrOut
	}
	return index.KeyFor(filepath.Join(root, index.KeyFileName), warn), nil
}

func (f *Factory) getenv() func(string) string {
	if f.Getenv != nil {
		return f.Getenv
	}
	return os.Getenv
}

// VerifyIndex checks coll's metadata and every record against their
// authenticators: what `index status`, doctor and MCP's index_status
// report.
func VerifyIndex(ctx context.Context, coll *chroma.Collection) (*index.Verification, error) {
	key, ok := coll.Auth().(*index.RecordKey)
	if !ok {
		return nil, nil // a store without checks (not cmdai's own)
	}
	recs, err := coll.Unchecked().All(ctx, chroma.Include{Documents: true})
	if err != nil {
		return nil, fmt.Errorf("verify the records of %s: %w", coll.Name(), err)
	}
	v := &index.Verification{Metadata: index.MetadataState(coll.MetadataErr())}
	for _, r := range recs {
		if r.Metadata == nil {
			r.Metadata = map[string]any{}
		}
		v.Add(key.Check(r.ID, r.Document, r.Metadata))
	}
	return v, nil
}
