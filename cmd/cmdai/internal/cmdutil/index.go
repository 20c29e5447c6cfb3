package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
)

// OpenIndex opens this distribution's collection, with exit code 3 and
// the command to run when there is none.
func OpenIndex(ctx context.Context, conn *Connection, name string) (*chroma.Collection, error) {
	coll, err := conn.OpenCollection(ctx, name)
	if errors.Is(err, chroma.ErrNoCollection) {
		return nil, WithCode(ExitNoIndex, fmt.Errorf("no index %s on %s: build it with `cmdai index init`, or fetch one with `cmdai index download <distro-id>`", name, conn.URL))
	}
	return coll, err
}

// Answerable refuses an index a query cannot trust, one whose metadata
// fails its check (exit 5), whose build never finished or one without
// records, with exit code 3 and what to run:
// never an empty answer with exit 0.
func Answerable(ctx context.Context, coll *chroma.Collection) error {
	if err := coll.MetadataErr(); err != nil {
		// its model, state and counts cannot be trusted either
		return WithCode(ExitVerification, fmt.Errorf("index %s: %s", coll.Name(), index.MetadataFailure(err)))
	}
	if !index.ParseMeta(coll.Metadata()).Complete {
		return WithCode(ExitNoIndex, fmt.Errorf("index %s is incomplete (its build was interrupted): finish it with `cmdai index init`", coll.Name()))
	}
	n, err := coll.Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return WithCode(ExitNoIndex, fmt.Errorf("index %s is empty: build it with `cmdai index init`, or fetch one with `cmdai index download <distro-id>`", coll.Name()))
	}
	return nil
}
