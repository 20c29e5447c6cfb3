package cmdutil

import (
	"os"
	"path/filepath"

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
	return index.KeyFor(filepath.Join(root, index.KeyFileName), f.errOut()), nil
}

func (f *Factory) getenv() func(string) string {
	if f.Getenv != nil {
		return f.Getenv
	}
	return os.Getenv
}
