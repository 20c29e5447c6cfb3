package indexer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/pipeline"
	"github.com/cmdai/cmdai/ship"
)

// DefaultProseBudget is the word pieces of prose embedded per man page
// besides its summary, options and examples (manparse.Budget): most pages
// have less and are kept whole, while the longest ones stop weighing on
// the build time. BENCHMARKS.md measures both sides of it.
const DefaultProseBudget = 512

// BuildOptions configure Build.
type BuildOptions struct {
	Pipeline pipeline.Options
	// Embedders run in parallel, one goroutine each; all must use the
	// same model. At least one.
	Embedders []embed.Embedder
	// Cache, when set, serves vectors of texts embedded before.
	Cache *embed.Cache
	// Collection is the collection's name (distro.Info.CollectionName).
	Collection  string
	ToolVersion string
	// Force builds a new index from scratch, aside, and swaps it in once
	// complete; otherwise records already there with the same text and
	// fingerprint are kept as they are.
	Force bool
	// WriteBatch bounds each upsert (and the server's limit bounds it too);
	// 0 means 256.
	WriteBatch int
	// Docs are users' command docs and hints, indexed with the pages: all
	// by a whole-machine build, those of the named commands by one
	// restricted to Pipeline.Commands.
	Docs []customdocs.Doc
	// Progress is called after each man page is through the pipeline.
	Progress func(Progress)
	Now      func() time.Time
}

// Progress is a snapshot of a running build.
type Progress struct {
	Pages, TotalPages        int
	Chunks, Embedded, Reused int
	Written                  int
}

// Failure is one page that could not be indexed.
type Failure struct {
	Command string `json:"command"`
	Page    string `json:"man_page,omitempty"`
	Error   string `json:"error"`
}

// Summary is what a build did.
type Summary struct {
	Collection string `json:"collection"`
	Distro     string `json:"distro"`
	Model      string `json:"model"`
	Variant    string `json:"model_variant"`
	Backend    string `json:"backend"`
	Commands   int    `json:"commands"`
	Aliases    int    `json:"aliases"`
	Chunks     int    `json:"chunks"`
	Embedded   int    `json:"embedded"`
	Cached     int    `json:"from_cache"`
	Unchanged  int    `json:"unchanged"`
	Written    int    `json:"written"`
	Deleted    int    `json:"deleted"`
	Failed     int    `json:"failed_pages"`
	// DocsWritten and DocsDeleted count custom-doc and hint records.
	DocsWritten int `json:"docs_written"`
	DocsDeleted int `json:"docs_deleted"`
	// Failures lists the pages that failed, with why.
	Failures []Failure      `json:"failures,omitempty"`
	Records  int            `json:"records"`
	Stats    pipeline.Stats `json:"pipeline"`
	// Stage times: scan+parse are the pipeline's; embed and write are
	// the time their workers were busy (they overlap with parsing).
	ScanTime  pipeline.Duration `json:"scan_seconds"`
	ParseTime pipeline.Duration `json:"parse_seconds"`
	EmbedTime pipeline.Duration `json:"embed_seconds"`
	WriteTime pipeline.Duration `json:"write_seconds"`
	Total     pipeline.Duration `json:"total_seconds"`
}

// Build scans, parses, chunks, embeds and writes this machine's commands
// into the collection. Writes are upserts by stable id, so a build that
// was interrupted can simply be run again: it reuses what was written and
// the embedding cache. The collection is marked complete only at the end;
// a first build or a --force one writes aside and swaps the result in
// then (see buildSuffix).
func Build(ctx context.Context, store *chroma.Store, o BuildOptions) (Summary, error) {
	start := time.Now()
	if len(o.Embedders) == 0 {
		return Summary{}, errors.New("no embedder")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.WriteBatch <= 0 {
		o.WriteBatch = 256
	}
	info := o.Embedders[0].Info()
	sum := Summary{Collection: o.Collection, Distro: o.Pipeline.Distro.ID, Model: info.Model, Variant: info.Variant, Backend: info.Backend}
	meta := index.Meta{
		Model: info.Model, Dims: info.Dims, ModelSHA256: info.SHA256, ModelVariant: info.Variant,
		ToolVersion: o.ToolVersion, SchemaVersion: index.SchemaVersion, Distro: o.Pipeline.Distro.ID,
		OS: o.Pipeline.Distro.OS, BuiltAt: o.Now(), ProseBudget: o.Pipeline.ProseBudget,
	}

	// A swap an earlier run (build or import) was killed in is undone
	// first, so that the index is where it belongs.
	if err := ship.RecoverImport(ctx, store, o.Collection); err != nil {
		return sum, err
	}
	// What is there already decides what can be kept, and where the build
	// writes: over a complete index, in place; otherwise (a first build,
	// or --force) into a collection aside that replaces the index only
	// once complete, as an import does, so that the previous index
	// answers until then and no reader ever sees a half index.
	existing := map[string]string{} // id -> content_hash + fingerprint
	existingCmd := map[string]string{}
	existingDoc := map[string]bool{}
	var old index.Meta
	name := o.Collection
	coll, err := store.OpenCollection(ctx, name)
	switch {
	case errors.Is(err, chroma.ErrNoCollection) || (err == nil && o.Force):
		name = o.Collection + buildSuffix
		if coll, err = store.OpenCollection(ctx, name); err == nil && !resumable(index.ParseMeta(coll.Metadata()), info.SHA256, o.Pipeline.Commands) {
			// left by a build that cannot be resumed: start over
			if err := store.DeleteCollection(ctx, name); err != nil {
				return sum, fmt.Errorf("remove the leftover of an interrupted build: %w", err)
			}
			err = chroma.ErrNoCollection
		}
		switch {
		case errors.Is(err, chroma.ErrNoCollection):
		case err != nil:
			return sum, err
		default:
			// an interrupted build of the same kind: what it wrote is kept
			if err := readExisting(ctx, coll, existing, existingCmd, existingDoc); err != nil {
				return sum, err
			}
		}
	case err != nil:
		return sum, err
	default:
		old = index.ParseMeta(coll.Metadata())
		if old.ModelSHA256 != info.SHA256 || old.SchemaVersion != index.SchemaVersion {
			return sum, fmt.Errorf("collection %s was built with %s %s, schema %d; this build uses %s %s, schema %d: run `cmdai index init --force` to rebuild it",
				o.Collection, old.Model, old.ModelVariant, old.SchemaVersion, info.Model, info.Variant, index.SchemaVersion)
		}
		if err := readExisting(ctx, coll, existing, existingCmd, existingDoc); err != nil {
			return sum, err
		}
	}
	// A build aside is marked incomplete until the end, so that status
	// can tell an interrupted one. An update in place of a complete index
	// leaves it marked complete: every command stays in it (old or new
	// records: deletions come last), it answers throughout, and staleness
	// shows what an interrupted update did not reach.
	if coll, err = store.CreateCollection(ctx, name, meta.Map()); err != nil {
		return sum, err
	}
	if name != o.Collection || !old.Complete {
		if err := coll.SetMetadata(ctx, meta.Map()); err != nil {
			return sum, err
		}
	}

	type batch []chroma.Record
	toEmbed := make(chan batch, 2*len(o.Embedders))
	toWrite := make(chan batch, 4)
	seen := map[string]bool{}
	skipped := map[string]string{}
	failed := map[string]string{} // command -> why, kept in the metadata
	var embedBusy, writeBusy atomic.Int64
	var embedded, cached, written atomic.Int64
	var mu sync.Mutex // guards sum counters touched by the producer and Progress
	var prog Progress

	g, gctx := errgroup.WithContext(ctx)
	// Stage 1 (producer): the pipeline, in order; records whose text and
	// fingerprint are already stored are skipped, cached vectors go
	// straight to the writer.
	g.Go(func() error {
		defer close(toEmbed)
		popts := o.Pipeline
		popts.Progress = func(done, total int) {
			mu.Lock()
			prog.Pages, prog.TotalPages = done, total
			p := prog
			mu.Unlock()
			p.Embedded, p.Written = int(embedded.Load()), int(written.Load())
			if o.Progress != nil {
				o.Progress(p)
			}
		}
		st, err := pipeline.Run(gctx, popts, func(r pipeline.Result) error {
			switch r.Status {
			case pipeline.StatusAlias:
				sum.Aliases++
				return nil
			case pipeline.StatusFailed:
				sum.Failed++
				sum.Failures = append(sum.Failures, Failure{Command: r.Command, Page: r.ManPage, Error: r.Error})
				failed[r.Command] = index.FailureText(r.Error)
			}
			if len(r.Chunks) == 0 {
				if r.Fingerprint != "" {
					skipped[r.Command] = r.Fingerprint
				}
				return nil
			}
			sum.Commands++
			var need, ready batch
			for _, c := range r.Chunks {
				sum.Chunks++
				seen[c.ID] = true
				rec := toChroma(c)
				if k, ok := existing[c.ID]; ok && k == keyOf(c.Metadata) {
					sum.Unchanged++
					continue
				}
				if o.Cache != nil {
					if v, ok := o.Cache.Get(c.Text); ok {
						rec.Embedding = v
						ready = append(ready, rec)
						cached.Add(1)
						continue
					}
				}
				need = append(need, rec)
			}
			mu.Lock()
			prog.Chunks, prog.Reused = sum.Chunks, sum.Unchanged+int(cached.Load())
			mu.Unlock()
			if len(ready) > 0 {
				select {
				case toWrite <- ready:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			if len(need) > 0 {
				select {
				case toEmbed <- need:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
		sum.Stats = st
		return err
	})
	// Stage 2: one goroutine per embedder.
	var embedders sync.WaitGroup
	for _, e := range o.Embedders {
		embedders.Add(1)
		g.Go(func() error {
			defer embedders.Done()
			for b := range toEmbed {
				texts := make([]string, len(b))
				for i, r := range b {
					texts[i] = r.Document
				}
				t0 := time.Now()
				vecs, err := e.Embed(gctx, texts)
				embedBusy.Add(int64(time.Since(t0)))
				if err != nil {
					return fmt.Errorf("embed %s: %w", b[0].ID, err)
				}
				for i := range b {
					b[i].Embedding = vecs[i]
				}
				if o.Cache != nil {
					if err := o.Cache.Put(texts, vecs); err != nil {
						return err
					}
				}
				embedded.Add(int64(len(b)))
				select {
				case toWrite <- b:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		embedders.Wait()
		close(toWrite)
		return nil
	})
	// Stage 3: the writer, in batches.
	g.Go(func() error {
		var pending batch
		flush := func() error {
			if len(pending) == 0 {
				return nil
			}
			t0 := time.Now()
			err := coll.Upsert(gctx, pending)
			writeBusy.Add(int64(time.Since(t0)))
			written.Add(int64(len(pending)))
			pending = pending[:0]
			return err
		}
		for b := range toWrite {
			pending = append(pending, b...)
			if len(pending) >= o.WriteBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	})
	if err := g.Wait(); err != nil {
		return sum, err
	}
	sum.Embedded, sum.Cached, sum.Written = int(embedded.Load()), int(cached.Load()), int(written.Load())

	// Records no page gave this time go: on a whole-machine scan, those of
	// every command not seen (uninstalled); on a scan of some commands,
	// those of these commands only (an option that was removed).
	only := map[string]bool{}
	for _, c := range o.Pipeline.Commands {
		only[c] = true
	}
	// The user's docs: all of them on a whole-machine build; on a build of
	// some commands, those of these commands (the others stay as they are).
	docs := o.Docs
	if len(only) > 0 {
		docs = docsOf(o.Docs, only)
	}
	docRecs := DocRecords(docs, o.Pipeline.Distro, o.Now())
	w, d, err := syncDocs(ctx, coll, docRecs, only, o.Cache, func() (embed.Embedder, error) { return o.Embedders[0], nil })
	if err != nil {
		return sum, err
	}
	sum.DocsWritten, sum.DocsDeleted = w, d
	for _, r := range docRecs {
		seen[r.ID] = true
	}
	var gone []string
	for id := range existing {
		if existingDoc[id] {
			continue // SyncDocs keeps these
		}
		if !seen[id] && (len(only) == 0 || only[existingCmd[id]]) {
			gone = append(gone, id)
		}
	}
	if err := coll.Delete(ctx, gone); err != nil {
		return sum, err
	}
	sum.Deleted = len(gone)
	n, err := coll.Count(ctx)
	if err != nil {
		return sum, err
	}
	sum.Records = n
	meta.Complete, meta.Commands, meta.Chunks, meta.Skipped, meta.Failed = true, sum.Commands+len(docs), n, skipped, failed
	if len(only) > 0 && len(existing) > 0 {
		// a partial build: the other commands are still there
		if meta.Commands, err = countCommands(ctx, coll); err != nil {
			return sum, err
		}
		meta.Skipped = keptOthers(old.Skipped, skipped, only)
		meta.Failed = keptOthers(old.Failed, failed, only)
	}
	if err := coll.SetMetadata(ctx, meta.Map()); err != nil {
		return sum, err
	}
	if name != o.Collection {
		if err := ship.Swap(ctx, store, name, o.Collection); err != nil {
			return sum, err
		}
	}
	sum.ScanTime, sum.ParseTime = sum.Stats.ScanTime, sum.Stats.ParseTime
	sum.EmbedTime, sum.WriteTime = pipeline.Duration(embedBusy.Load()), pipeline.Duration(writeBusy.Load())
	sum.Total = pipeline.Duration(time.Since(start))
	return sum, nil
}

// buildSuffix names the collection a first or --force build writes into
// before it replaces the index.
const buildSuffix = "__build"

// resumable says whether what an interrupted build left aside can be kept:
// written by the same model and schema, and by a whole-machine build (one
// of some commands would leave records of others in the new index).
func resumable(m index.Meta, modelSHA string, commands []string) bool {
	return len(commands) == 0 && m.ModelSHA256 == modelSHA && m.SchemaVersion == index.SchemaVersion
}

// readExisting notes, for each record of coll, what decides whether it is
// kept: its key, its command, and whether it is a user's doc.
func readExisting(ctx context.Context, coll *chroma.Collection, key, cmd map[string]string, doc map[string]bool) error {
	recs, err := coll.All(ctx, chroma.Include{})
	if err != nil {
		return err
	}
	for _, r := range recs {
		md := metaOf(r)
		key[r.ID], cmd[r.ID], doc[r.ID] = keyOf(md), md.Command, md.Source.IsDoc()
	}
	return nil
}

// countCommands counts the commands a collection holds (one summary record
// each).
func countCommands(ctx context.Context, coll *chroma.Collection) (int, error) {
	recs, err := coll.All(ctx, chroma.Include{Where: index.WhereKind(index.KindSummary)})
	return len(recs), err
}

// keptOthers merges what a partial build of the commands in only learned
// (now) into what the collection said of every command (before): the
// other commands keep their entries.
func keptOthers(before, now map[string]string, only map[string]bool) map[string]string {
	out := map[string]string{}
	for c, v := range before {
		if !only[c] {
			out[c] = v
		}
	}
	for c, v := range now {
		out[c] = v
	}
	return out
}
