package answer

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/recvec"
)

// OpenIndex opens the collection name on st, with exit code 3 and the
// command to run when there is none.
func OpenIndex(ctx context.Context, st *chroma.Store, name string) (*chroma.Collection, error) {
	coll, err := st.OpenCollection(ctx, name)
	var putBack *chroma.PutBackError
	if errors.As(err, &putBack) {
		return nil, exitcode.With(exitcode.NoIndex, fmt.Errorf("%w\n  build it again with `cmdai index init`", err))
	}
	if errors.Is(err, chroma.ErrNoCollection) {
		return nil, exitcode.With(exitcode.NoIndex, fmt.Errorf("no index %s on %s: build it with `cmdai index init`, or fetch one with `cmdai index download <distro-id>`", name, st.URL))
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
		return exitcode.With(exitcode.Verification, fmt.Errorf("index %s: %s", coll.Name(), index.MetadataFailure(err)))
	}
	if !index.ParseMeta(coll.Metadata()).Complete {
		return exitcode.With(exitcode.NoIndex, fmt.Errorf("index %s is incomplete (its build was interrupted): finish it with `cmdai index init`", coll.Name()))
	}
	n, err := coll.Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return exitcode.With(exitcode.NoIndex, fmt.Errorf("index %s is empty: build it with `cmdai index init`, or fetch one with `cmdai index download <distro-id>`", coll.Name()))
	}
	return nil
}

// OpenAnswerable opens the collection name on st and refuses it unless a
// query can trust it (OpenIndex, then Answerable).
func OpenAnswerable(ctx context.Context, st *chroma.Store, name string) (*chroma.Collection, error) {
	coll, err := OpenIndex(ctx, st, name)
	if err != nil {
		return nil, err
	}
	if err := Answerable(ctx, coll); err != nil {
		return nil, err
	}
	return coll, nil
}

// StatusSample is how many records a status checks unless asked to
// check them all (`index status --verify`, doctor): reading and checking
// every record took 5.9 of status's 7 s on a whole machine's index
// (24,684 records); a sample spread over the collection still finds a
// collection rewritten wholesale, and its sealed metadata is checked
// whole either way.
const StatusSample = 256

// statusPages is how many places of the collection the sample reads.
const statusPages = 8

// CheckIndex checks coll's metadata and, when all, every record against
// their authenticators (VerifyIndex); else StatusSample records read at
// statusPages places spread over the collection (all of a smaller one),
// marked Sampled: what `index status`, serve's and MCP's status report.
func CheckIndex(ctx context.Context, coll *chroma.Collection, all bool) (*index.Verification, error) {
	key, ok := coll.Auth().(*index.RecordKey)
	if !ok {
		return nil, nil // a store without checks (not cmdai's own)
	}
	n, err := coll.Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the records of %s: %w", coll.Name(), err)
	}
	if all || n <= StatusSample {
		v, err := VerifyIndex(ctx, coll)
		if v != nil {
			sealedCount(v, coll, n)
		}
		return v, err
	}
	v := &index.Verification{Metadata: index.MetadataState(coll.MetadataErr()), Sampled: true}
	sealedCount(v, coll, n)
	per := StatusSample / statusPages
	for i := range statusPages {
		recs, err := coll.Unchecked().GetPage(ctx, i*(n-per)/(statusPages-1), per, chroma.Include{Documents: true, Embeddings: true})
		if err != nil {
			return nil, fmt.Errorf("verify a sample of the records of %s: %w", coll.Name(), err)
		}
		for _, r := range recs {
			if r.Metadata == nil {
				r.Metadata = map[string]any{}
			}
			v.Add(key.Check(r.ID, r.Document, r.Embedding, r.Metadata))
		}
	}
	return v, nil
}

// sealedCount sets what v compares a collection of n records with: the
// count its sealed metadata gives when that verified and the index is
// complete (a build in progress, or one interrupted, holds fewer).
func sealedCount(v *index.Verification, coll *chroma.Collection, n int) {
	if v.MetadataFailed() {
		return
	}
	if m := index.ParseMeta(coll.Metadata()); m.Complete {
		v.SealedCount, v.Held = m.Chunks, n
	}
}

// VerifyIndex checks coll's metadata and every record against their
// authenticators, vectors included: what `index status --verify` and doctor report.
func VerifyIndex(ctx context.Context, coll *chroma.Collection) (*index.Verification, error) {
	key, ok := coll.Auth().(*index.RecordKey)
	if !ok {
		return nil, nil // a store without checks (not cmdai's own)
	}
	recs, err := coll.Unchecked().All(ctx, chroma.Include{Documents: true, Embeddings: true})
	if err != nil {
		return nil, fmt.Errorf("verify the records of %s: %w", coll.Name(), err)
	}
	v := &index.Verification{Metadata: index.MetadataState(coll.MetadataErr())}
	for _, r := range recs {
		if r.Metadata == nil {
			r.Metadata = map[string]any{}
		}
		v.Add(key.Check(r.ID, r.Document, r.Embedding, r.Metadata))
	}
	return v, nil
}

// Model opens the embedder of a model variant: the CLI's Factory
// (--model-dir, --model-backend) bound to the command's flags. variant
// is never "": the one asked for, else the index's own.
type Model func(ctx context.Context, variant string) (embed.Embedder, error)

// OpenSearcher opens what a search in any mode needs on st: the
// collection name (refused unless answerable), the embedder of its
// model (variant, or the index's own when ""), checked against the
// index, and, when keywordDir is not "", its keyword index (loaded from
// there, or built and saved), and the reranker rerank opens (nil: none).
// The caller calls the returned close.
func OpenSearcher(ctx context.Context, st *chroma.Store, name, variant string, model Model, keywordDir string, rerank RerankerSource) (search.Searcher, func(), error) {
	coll, err := OpenAnswerable(ctx, st, name)
	if err != nil {
		return search.Searcher{}, nil, err
	}
	meta := index.ParseMeta(coll.Metadata())
	if variant == "" {
		variant = meta.ModelVariant
	}
	e, err := model(ctx, variant)
	if err != nil {
		return search.Searcher{}, nil, err
	}
	if err := CheckModel(meta, e.Info()); err != nil {
		e.Close()
		return search.Searcher{}, nil, exitcode.With(exitcode.Verification, err)
	}
	s := search.Searcher{Coll: coll, Embedder: e}
	if keywordDir != "" {
		s.KeywordDir = keywordDir
		if s.Keywords, err = kwstore.Open(ctx, coll, keywordDir); err != nil {
			e.Close()
			return s, nil, err
		}
	}
	r, closeR, err := openReranker(ctx, rerank)
	if err != nil {
		e.Close()
		return s, nil, err
	}
	s.Reranker = r
	return s, func() { closeR(); e.Close() }, nil
}

// CheckModel says whether vectors from info can be compared with those of
// an index of metadata m, and what to do when not: every opener of an
// index for answering asks it (OpenSearcher, answer/warm).
func CheckModel(m index.Meta, info embed.Info) error {
	if m.ModelSHA256 == info.SHA256 {
		return nil
	}
	return fmt.Errorf("the index was built with %s %s (sha256 %.12s) but the embedder is %s %s (sha256 %.12s): use --model-variant %s, or rebuild with `cmdai index init --force`",
		m.Model, m.ModelVariant, m.ModelSHA256, info.Model, info.Variant, info.SHA256, m.ModelVariant)
}

// Prepare builds what answering from coll reads on its first use, so that
// no first answer builds it: the keyword index and the records' vectors
// (the option ranker's), saved in keywordDir. Every writer runs it once
// the index is written (init, refresh, import); answering builds them
// itself when they are missing or outdated.
func Prepare(ctx context.Context, coll *chroma.Collection, keywordDir string) error {
	kw, err := kwstore.Open(ctx, coll, keywordDir)
	if err != nil {
		return fmt.Errorf("build the keyword index of %s: %w", coll.Name(), err)
	}
	if _, err := recvec.Of(ctx, kw, coll, keywordDir); err != nil {
		return fmt.Errorf("read the vectors of %s: %w", coll.Name(), err)
	}
	return nil
}
