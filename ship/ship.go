// Package ship moves indexes between machines: export to a tarball, import
// from one atomically (a temporary collection swapped into place, with
// recovery of a swap a kill interrupted), and download from a release
// location (checksums first, fetch with resume, verify, then import).
package ship

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/swap"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/packaging"
)

// Export writes the collection as a tarball (packaging) to w. Only a
// complete index is exported: an interrupted build would ship holes.
func Export(ctx context.Context, coll *chroma.Collection, w io.Writer, chromaVersion string) (packaging.Manifest, error) {
	if err := coll.MetadataErr(); err != nil {
		return packaging.Manifest{}, fmt.Errorf("index %s: not exported: %s", coll.Name(), index.MetadataFailure(err))
	}
	md := coll.Metadata()
	meta := index.ParseMeta(md)
	if !meta.Complete {
		return packaging.Manifest{}, fmt.Errorf("index %s is incomplete (its build was interrupted): finish it with `cmdai index init` before exporting", coll.Name())
	}
	recs, err := coll.All(ctx, chroma.Include{Documents: true, Embeddings: true})
	if err != nil {
		return packaging.Manifest{}, err
	}
	// All returns the records that pass their check (without their
	// authenticator: a tarball carries none, its import authenticates
	// its records under the importing machine's key once the manifest's
	// checksums and signature hold): one short means some failed.
	if n, err := coll.Count(ctx); err != nil {
		return packaging.Manifest{}, err
	} else if n != len(recs) {
		return packaging.Manifest{}, fmt.Errorf("%d of the %d records of %s failed verification (the index was tampered with): not exported; %s", n-len(recs), n, coll.Name(), index.RebuildHint)
	}
	out := make([]packaging.Record, len(recs))
	cmds := map[string]bool{}
	packages := map[string]string{}
	for i, r := range recs {
		out[i] = packaging.Record{ID: r.ID, Document: r.Document, Metadata: r.Metadata, Embedding: r.Embedding}
		rm := index.FromChroma(r.Metadata)
		if rm.Command != "" {
			cmds[rm.Command] = true
		}
		if rm.Package != "" {
			packages[rm.Package] = rm.PackageVersion
		}
	}
	names := make([]string, 0, len(cmds))
	for c := range cmds {
		names = append(names, c)
	}
	sort.Strings(names)
	m := packaging.Manifest{
		Distro: meta.Distro, OS: meta.OS, Collection: coll.Name(),
		Model:       packaging.Model{Name: meta.Model, Dims: meta.Dims, SHA256: meta.ModelSHA256, Variant: meta.ModelVariant},
		ToolVersion: meta.ToolVersion, ChromaVersion: chromaVersion,
		Commands: len(names), BuiltAt: meta.BuiltAt, SourceCommands: names, CollectionMetadata: index.Exported(md),
	}
	if len(packages) > 0 {
		m.Packages = packages
	}
	if err := packaging.Write(ctx, w, m, out); err != nil {
		return m, err
	}
	m.Records = len(out)
	return m, nil
}

// Target is where an import goes: the collection, and the distribution
// its collection and record metadata then name.
type Target struct {
	Collection, Distro, OS string
}

// ImportOptions configure Import.
type ImportOptions struct {
	// Check decides, from the manifest, whether to go on and where to;
	// it runs before anything is written.
	Check func(packaging.Manifest) (Target, error)
	// Validate reads and verifies everything but writes nothing.
	Validate bool
	// WriteBatch bounds each upsert; 0 means the server's maximum.
	WriteBatch int
	// Progress is called after each batch written.
	Progress func(done, total int)
	Limits   packaging.Limits
	// From says where the tarball came from, and Unsigned that no
	// verified signature vouched for it: sealed into the index's
	// metadata (index.SetOrigin), so that status tells an unsigned
	// import from what this machine built.
	From     string
	Unsigned bool
}

// Import loads a tarball into a collection atomically: the records go into
// a temporary collection, which replaces the target only once all of them
// are in and verified; a failure (or a kill) before that leaves the
// previous index as it was, and a kill during the swap itself is repaired
// by the next import (swap.Recover).
func Import(ctx context.Context, store *chroma.Store, r io.Reader, o ImportOptions) (packaging.Manifest, string, error) {
	var (
		to              Target
		target, tmpName string
		tmp             *chroma.Collection
		batch           []chroma.Record
		done, total     int
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := tmp.Upsert(ctx, batch); err != nil {
			return err
		}
		done += len(batch)
		batch = batch[:0]
		if o.Progress != nil {
			o.Progress(done, total)
		}
		return nil
	}
	h := packaging.Handler{
		Manifest: func(m packaging.Manifest) error {
			var err error
			if to, err = o.Check(m); err != nil {
				return err
			}
			target, total = to.Collection, m.Records
			if o.Validate {
				return nil
			}
			if err := swap.Recover(ctx, store, target); err != nil {
				return err
			}
			tmpName = target + swap.ImportSuffix
			md := index.Placed(m.CollectionMetadata, to.Distro, to.OS)
			index.SetOrigin(md, o.From, o.Unsigned)
			index.SetComplete(md, false) // until every record is in
			tmp, err = store.CreateCollection(ctx, tmpName, md)
			return err
		},
	}
	if !o.Validate {
		h.Record = func(rec packaging.Record) error {
			index.PlaceRecord(rec.Metadata, to.Distro, to.OS)
			batch = append(batch, chroma.Record{ID: rec.ID, Document: rec.Document, Metadata: rec.Metadata, Embedding: rec.Embedding})
			limit := store.MaxBatchSize()
			if o.WriteBatch > 0 {
				limit = min(limit, o.WriteBatch)
			}
			if len(batch) >= limit {
				return flush()
			}
			return nil
		}
	}
	m, err := packaging.Read(ctx, r, o.Limits, h)
	if err == nil && !o.Validate {
		err = flush()
	}
	if err == nil && !o.Validate {
		var n int
		if n, err = tmp.Count(ctx); err == nil && n != m.Records {
			err = fmt.Errorf("the server holds %d of the %d records written: import again", n, m.Records)
		}
	}
	if err == nil && !o.Validate {
		md := index.Placed(m.CollectionMetadata, to.Distro, to.OS)
		index.SetOrigin(md, o.From, o.Unsigned)
		err = tmp.SetMetadata(ctx, md)
	}
	if err != nil {
		if tmp != nil {
			// a fresh context: the import's own may be what was cancelled
			_ = store.DeleteCollection(context.WithoutCancel(ctx), tmpName)
		}
		return m, target, err
	}
	if o.Validate {
		return m, target, nil
	}
	return m, target, swap.Swap(ctx, store, tmpName, target)
}
