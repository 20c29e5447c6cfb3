package indexer

import (
	"context"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
)

// DocRecords turns users' command docs and hints into records, with the
// same metadata as man-page records plus source (custom or hint),
// priority and keywords.
func DocRecords(docs []customdocs.Doc, info distro.Info, now time.Time) []index.Record {
	var out []index.Record
	for _, d := range docs {
		for _, c := range d.Chunks() {
			md := index.Metadata{
				Command: d.Command, Kind: index.Kind(c.Kind), Section: c.Section, Source: index.Source(d.Source),
				Distro: info.ID, OS: info.OS, IndexedAt: now, ContentHash: index.ContentHash(c.Text),
				Fingerprint: d.Fingerprint, DocPath: d.Path, Description: d.Description, Version: d.Version,
				Priority: d.Priority, Aliases: d.Aliases, Keywords: d.Keywords, RelevantFor: d.RelevantFor,
			}
			out = append(out, index.Record{ID: c.ID, Text: c.Text, Metadata: md})
		}
	}
	return out
}

// SyncDocs makes the collection's custom-doc and hint records those of
// recs: changed or new ones are embedded (open is called only then) and
// written, those of files that are gone are deleted. Unchanged ones are
// left alone.
func SyncDocs(ctx context.Context, coll *chroma.Collection, recs []index.Record, cache *embed.Cache, open func() (embed.Embedder, error)) (written, deleted int, err error) {
	return syncDocs(ctx, coll, recs, nil, cache, open)
}

// docsOf keeps the command docs of the named commands (by name or alias).
func docsOf(docs []customdocs.Doc, names map[string]bool) []customdocs.Doc {
	var out []customdocs.Doc
	for _, d := range docs {
		if d.Source != customdocs.SourceCustom {
			continue
		}
		hit := names[d.Command]
		for _, a := range d.Aliases {
			hit = hit || names[a]
		}
		if hit {
			out = append(out, d)
		}
	}
	return out
}

// syncDocs is SyncDocs over the docs of the commands in only (all when
// only is empty): other commands' doc records are neither kept nor
// deleted, so a build of some commands leaves them as they are.
func syncDocs(ctx context.Context, coll *chroma.Collection, docRecs []index.Record, only map[string]bool, cache *embed.Cache, open func() (embed.Embedder, error)) (written, deleted int, err error) {
	existing := map[string]string{}
	for _, src := range []index.Source{index.SourceCustom, index.SourceHint} {
		old, err := coll.All(ctx, chroma.Include{Where: index.WhereSource(src)})
		if err != nil {
			return 0, 0, err
		}
		for _, r := range old {
			md := metaOf(r)
			if len(only) > 0 && (src != index.SourceCustom || !only[md.Command]) {
				continue
			}
			existing[r.ID] = keyOf(md)
		}
	}
	var todo []chroma.Record
	keep := map[string]bool{}
	for _, r := range docRecs {
		keep[r.ID] = true
		if k, ok := existing[r.ID]; !ok || k != keyOf(r.Metadata) {
			todo = append(todo, toChroma(r))
		}
	}
	if len(todo) > 0 {
		var need []int
		for i := range todo {
			if cache != nil {
				if v, ok := cache.Get(todo[i].Document); ok {
					todo[i].Embedding = v
					continue
				}
			}
			need = append(need, i)
		}
		if len(need) > 0 {
			e, err := open()
			if err != nil {
				return 0, 0, err
			}
			texts := make([]string, len(need))
			for j, i := range need {
				texts[j] = todo[i].Document
			}
			vecs, err := e.Embed(ctx, texts)
			if err != nil {
				return 0, 0, err
			}
			for j, i := range need {
				todo[i].Embedding = vecs[j]
			}
			if cache != nil {
				_ = cache.Put(texts, vecs)
			}
		}
		if err := coll.Upsert(ctx, todo); err != nil {
			return 0, 0, err
		}
	}
	var gone []string
	for id := range existing {
		if !keep[id] {
			gone = append(gone, id)
		}
	}
	if err := coll.Delete(ctx, gone); err != nil {
		return len(todo), 0, err
	}
	return len(todo), len(gone), nil
}
