package querycmd

import (
	"context"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
)

// OpenSearcher opens what a search in any mode needs: the collection, the
// embedder of its model, and its keyword index (loaded or built, when
// withKeywords). Query, eval and the MCP server share it.
func OpenSearcher(ctx context.Context, f *cmdutil.Factory, conn *cmdutil.Connection, info distro.Info, mo cmdutil.ModelOptions, withKeywords bool) (search.Searcher, func(), error) {
	coll, err := cmdutil.OpenIndex(ctx, conn, info.CollectionName())
	if err != nil {
		return search.Searcher{}, nil, err
	}
	if err := cmdutil.Answerable(ctx, coll); err != nil {
		return search.Searcher{}, nil, err
	}
	meta := index.ParseMeta(coll.Metadata())
	if mo.Variant == "" {
		mo.Variant = meta.ModelVariant
	}
	var e embed.Embedder
	if e, err = f.Embedder(ctx, mo, 0); err != nil {
		return search.Searcher{}, nil, err
	}
	if err := builder.CheckModel(meta, e.Info()); err != nil {
		e.Close()
		return search.Searcher{}, nil, cmdutil.WithCode(cmdutil.ExitVerification, err)
	}
	s := search.Searcher{Coll: coll, Embedder: e}
	if withKeywords {
		dir, err := config.KeywordDir(f.Getenv)
		if err != nil {
			e.Close()
			return s, nil, err
		}
		s.KeywordDir = dir
		if s.Keywords, err = kwstore.Open(ctx, coll, dir); err != nil {
			e.Close()
			return s, nil, err
		}
	}
	return s, func() { e.Close() }, nil
}
