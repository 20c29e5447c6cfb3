package builder

import (
	"context"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embcache"
	"github.com/cmdai/cmdai/index"
)

// docRecords turns users' command docs and hints into records, with the
// same metadata as man-page records plus source (custom or hint),
// priority and keywords.
func docRecords(docs []customdocs.Doc, info distro.Info, now time.Time) []index.Record {
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

// syncDocs makes the collection's custom-doc and hint records those of
// docs, through the same stages as a build with the docs as its only
// source: changed or new ones are embedded (embedders is called only
// then) and written, those of files that are gone are deleted, unchanged
// ones are left alone.
func syncDocs(ctx context.Context, coll *chroma.Collection, docs []customdocs.Doc, info distro.Info, cache *embcache.Cache, embedders func() ([]embed.Embedder, error)) (written, deleted int, err error) {
	held := map[string]stored{}
	for _, src := range []index.Source{index.SourceCustom, index.SourceHint} {
		recs, err := readHeld(ctx, coll, index.WhereSource(src))
		if err != nil {
			return 0, 0, err
		}
		for id, st := range recs {
			held[id] = st
		}
	}
	var sum Summary
	s := newStream(coll, held, nil, &sum)
	s.docs, s.distro, s.now = docs, info, time.Now()
	s.cache, s.embedders = cache, embedders
	if err := s.run(ctx, 1); err != nil {
		return sum.DocsWritten, 0, err
	}
	_, gone := s.gone()
	if err := coll.Delete(ctx, gone); err != nil {
		return sum.DocsWritten, 0, err
	}
	return sum.DocsWritten, len(gone), nil
}
