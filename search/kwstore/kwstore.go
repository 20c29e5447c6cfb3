// Package kwstore keeps a collection's keyword index: the BM25 index of
// its chunks (package bm25), built from the collection's records and
// saved on disk under a name that changes with the collection, so that a
// query reads it instead of every record, and can still answer from it
// when Chroma cannot be reached.
package kwstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/firstuse"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search/bm25"
)

// checkedExt ends the name of a keyword index built from records that
// passed their check (chroma.Authenticator): one a cmdai before the
// checks saved (name-<hash>.bm25) may hold text no one checked, and is
// neither read nor kept.
const checkedExt = ".checked.bm25"

// Records is what a keyword index is built from: an index's collection
// (a *chroma.Collection, or search's unit tests' fake).
type Records interface {
	Name() string
	Metadata() map[string]any
	Count(ctx context.Context) (int, error)
	// All returns every record, with what inc asks for.
	All(ctx context.Context, inc chroma.Include) ([]chroma.Record, error)
}

// Open returns the BM25 index of the collection's chunks, kept in
// dir under a name that changes with the collection (its build time and
// record count): a missing or outdated one is rebuilt from the records
// and saved. It is derived from the records alone, so it travels with
// them: an imported index gets its own on first use (or at import).
func Open(ctx context.Context, coll Records, dir string) (*bm25.Index, error) {
	meta := index.ParseMeta(coll.Metadata())
	n, err := coll.Count(ctx)
	if err != nil {
		return nil, err
	}
	key := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d|%d|%s", coll.Name(), meta.BuiltAt.UTC().Format(time.RFC3339Nano), n, meta.Chunks, meta.ModelSHA256)))
	path := filepath.Join(dir, coll.Name()+"-"+hex.EncodeToString(key[:6])+checkedExt)
	if f, err := os.Open(path); err == nil {
		ix, err := bm25.Load(f)
		f.Close()
		// one without the chunks' text (an older cmdai's) is rebuilt, once
		if err == nil && ix.Len() == n && ix.HasChunks() {
			return ix, nil
		}
	}
	done := firstuse.Begin(ctx, "building the keyword index")
	ix, err := Build(ctx, coll)
	done()
	if err != nil {
		return nil, err
	}
	if err := save(ix, dir, coll.Name(), path); err != nil {
		// a cache: the query goes on without it
		return ix, nil
	}
	return ix, nil
}

// SavedPath is the keyword index of collection last saved in dir, ok
// false when there is none (nothing loaded): the trace of an index this
// machine answered from.
func SavedPath(dir, collection string) (string, bool) {
	paths, err := filepath.Glob(filepath.Join(dir, collection+"-*"+checkedExt))
	if err != nil || len(paths) == 0 {
		return "", false
	}
	sort.Slice(paths, func(i, j int) bool { return modTime(paths[i]).After(modTime(paths[j])) })
	return paths[0], true
}

// Forget removes what dir keeps of collection (its keyword index and the
// vectors beside it): the collection was deleted on purpose (`index
// clear`), and nothing should answer from it.
func Forget(dir, collection string) error {
	paths, err := filepath.Glob(filepath.Join(dir, collection+"-*"))
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Saved loads the collection's keyword index as Open
// last saved it in dir, without asking Chroma whether it is current: what
// a query can still answer from when Chroma cannot be reached. It returns
// the file it read, whose time says how old the answer may be.
func Saved(dir, collection string) (*bm25.Index, string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, collection+"-*"+checkedExt))
	if err != nil {
		return nil, "", err
	}
	if len(paths) == 0 {
		return nil, "", fmt.Errorf("no keyword index of %s in %s: a query in keyword or hybrid mode with Chroma up saves one", collection, dir)
	}
	// save leaves one; should a crash leave two, the newest.
	sort.Slice(paths, func(i, j int) bool { return modTime(paths[i]).After(modTime(paths[j])) })
	f, err := os.Open(paths[0])
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	ix, err := bm25.Load(f)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w (a query with Chroma up rewrites it)", paths[0], err)
	}
	if !ix.HasChunks() {
		return nil, "", fmt.Errorf("%s was saved by an older cmdai without the chunks' text: a query in keyword or hybrid mode with Chroma up rewrites it", paths[0])
	}
	return ix, paths[0], nil
}

func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// Build reads every chunk of the collection and indexes it.
func Build(ctx context.Context, coll Records) (*bm25.Index, error) {
	recs, err := coll.All(ctx, chroma.Include{Documents: true})
	if err != nil {
		return nil, err
	}
	docs := make([]bm25.Doc, len(recs))
	for i, r := range recs {
		md := index.FromChroma(r.Metadata)
		docs[i] = bm25.Doc{ID: r.ID, Command: md.Command, Aliases: md.Aliases, Text: r.Document, Meta: shown(md)}
	}
	return bm25.Build(docs), nil
}

// shown is the part of a chunk's metadata that ranking and printing read
// (search's aggregate, commandOf, Match): the keyword index keeps only that, not
// the build's bookkeeping (hashes, fingerprints, paths, times), which
// would make it four times the size of its postings and slower to load.
func shown(md index.Metadata) index.Metadata {
	return index.Metadata{Command: md.Command, Kind: md.Kind, Section: md.Section, Option: md.Option, Source: md.Source,
		Version: md.Version, Package: md.Package, PackageVersion: md.PackageVersion, Description: md.Description, Aliases: md.Aliases, Parent: md.Parent, ManSection: md.ManSection,
		InstalledPath: md.InstalledPath, Priority: md.Priority, References: md.References}
}

// save writes atomically and removes the collection's older
// indexes.
func save(ix *bm25.Index, dir, collection, path string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, collection+"-*.bm25"))
	if err := safefile.WriteFile(path, 0o644, ix.Save); err != nil {
		return err
	}
	for _, o := range old {
		if o != path {
			os.Remove(o)
		}
	}
	return nil
}
