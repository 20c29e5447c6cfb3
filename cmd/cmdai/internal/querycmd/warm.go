package querycmd

import (
	"context"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/search"
)

// OpenSearcher opens what every mode of search needs (the collection, its
// model, its keyword index) for a process that keeps it: `cmdai serve`.
// The caller calls the returned close.
func OpenSearcher(ctx context.Context, f *cmdutil.Factory, conn *cmdutil.Connection, info distro.Info, mo cmdutil.ModelOptions) (search.Searcher, func(), error) {
	return openSearcher(ctx, f, conn, info, mo, true)
}
