package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
)

// DocRecords turns users' command docs and hints into records, with the
// same metadata as man-page records plus source (custom or hint),
// priority and keywords.
func DocRecords(docs []customdocs.Doc, info distro.Info, now time.Time) []chroma.Record {
	var out []chroma.Record
	stamp := now.UTC().Format(time.RFC3339)
	for _, d := range docs {
		for _, c := range d.Chunks() {
			sum := sha256.Sum256([]byte(c.Text))
			md := map[string]any{
				"command": d.Command, "kind": c.Kind, "section": c.Section, "source": d.Source,
				"distro": info.ID, "os": info.OS, "indexed_at": stamp,
				"content_hash": hex.EncodeToString(sum[:]), "fingerprint": d.Fingerprint, "doc_path": d.Path,
			}
			for k, v := range map[string]string{"description": d.Description, "version": d.Version, "priority": d.Priority,
				"aliases": strings.Join(d.Aliases, ","), "keywords": strings.Join(d.Keywords, ","), "relevant_for": d.RelevantFor} {
				if v != "" {
					md[k] = v
				}
			}
			out = append(out, chroma.Record{ID: c.ID, Document: c.Text, Metadata: md})
		}
	}
	return out
}

// isDocSource reports records that come from users' files, not from the
// machine's man pages.
func isDocSource(md map[string]any) bool {
	s, _ := md["source"].(string)
	return s == customdocs.SourceCustom || s == customdocs.SourceHint
}

// SyncDocs makes the collection's custom-doc and hint records those of
// recs: changed or new ones are embedded (open is called only then) and
// written, those of files that are gone are deleted. Unchanged ones are
// left alone.
func SyncDocs(ctx context.Context, coll *chroma.Collection, recs []chroma.Record, cache *embed.Cache, open func() (embed.Embedder, error)) (written, deleted int, err error) {
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
func syncDocs(ctx context.Context, coll *chroma.Collection, recs []chroma.Record, only map[string]bool, cache *embed.Cache, open func() (embed.Embedder, error)) (written, deleted int, err error) {
	existing := map[string]string{}
	for _, src := range []string{customdocs.SourceCustom, customdocs.SourceHint} {
		old, err := coll.All(ctx, chroma.Include{Where: map[string]string{"source": src}})
		if err != nil {
			return 0, 0, err
		}
		for _, r := range old {
			if cmd, _ := r.Metadata["command"].(string); len(only) > 0 && (src != customdocs.SourceCustom || !only[cmd]) {
				continue
			}
			existing[r.ID] = keyOf(r.Metadata)
		}
	}
	var todo []chroma.Record
	keep := map[string]bool{}
	for _, r := range recs {
		keep[r.ID] = true
		if k, ok := existing[r.ID]; !ok || k != keyOf(r.Metadata) {
			todo = append(todo, r)
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
