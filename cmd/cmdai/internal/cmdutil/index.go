package cmdutil

import (
	"context"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/search"
)

// Model is the model the flags mo choose, for the answering layer: it
// opens the variant the index asks for unless mo names one.
func (f *Factory) Model(mo ModelOptions) answer.Model {
	return func(ctx context.Context, variant string) (embed.Embedder, error) {
		mo.Variant = variant
		return f.Embedder(ctx, mo, answerThreads)
	}
}

// answerThreads is ONNX Runtime's intra-op pool when answering: one
// thread. A learned query embeds its short request with the embedder
// and, at the same time, with the reranker; two-thread pools that spin
// against each other on 2 cores cost ~10 ms at p50 through serve, while
// one thread each answers as fast as the embedder alone did
// (BENCHMARKS.md, "A reranker trained here"). Both pass it: the first
// model opened sets the pool for the process's one ORT session.
const answerThreads = 1

// OpenSearcher opens what a search in any mode needs on conn
// (answer.OpenSearcher): info's collection, the model of mo (or the
// index's variant), and, when withKeywords, the keyword index under the
// data home. Query, eval and the MCP server share it.
func (f *Factory) OpenSearcher(ctx context.Context, conn *connect.Connection, info distro.Info, mo ModelOptions, withKeywords bool) (search.Searcher, func(), error) {
	dir := ""
	if withKeywords {
		var err error
		if dir, err = config.KeywordDir(f.Getenv); err != nil {
			return search.Searcher{}, nil, err
		}
	}
	return answer.OpenSearcher(ctx, conn.Store, info.CollectionName(), mo.Variant, f.Model(mo), dir, f.Reranker(mo))
}
