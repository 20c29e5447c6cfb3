package builder

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/swap"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
)

// buildSuffix names the collection a first or --force build writes into
// before it replaces the index.
const buildSuffix = "__build"

// target is the collection a build writes into and what it held before.
type target struct {
	coll *chroma.Collection
	// name is the index's own name when the build updates it in place,
	// else the collection aside that is swapped in at the end.
	name string
	// old is the index's metadata when updated in place.
	old  index.Meta
	held map[string]stored
}

// stored is what decides, for one record a collection holds, whether a
// build keeps, rewrites or deletes it.
type stored struct {
	key     string // keyOf its metadata
	command string
	source  index.Source
}

// openTarget finds where a build writes, and what is there already. A
// swap an earlier run (build or import) was killed in is undone first, so
// that the index is where it belongs. Over a complete index the build
// writes in place; otherwise (a first build, or --force) into a
// collection aside that replaces the index only once complete, as an
// import does, so that the previous index answers until then and no
// reader ever sees a half index.
func openTarget(ctx context.Context, store *chroma.Store, o Options, info embed.Info, meta index.Meta) (target, error) {
	if err := swap.Recover(ctx, store, o.Collection); err != nil {
		return target{}, err
	}
	t := target{name: o.Collection, held: map[string]stored{}}
	coll, err := store.OpenCollection(ctx, t.name)
	switch {
	case errors.Is(err, chroma.ErrNoCollection) || (err == nil && o.Force):
		t.name = o.Collection + buildSuffix
		if err := t.resumeAside(ctx, store, info.SHA256, o.Pages.Commands); err != nil {
			return t, err
		}
	case err != nil:
		return t, err
	case coll.MetadataErr() != nil:
		return t, fmt.Errorf("index %s: %s", o.Collection, index.MetadataFailure(coll.MetadataErr()))
	default:
		t.old = index.ParseMeta(coll.Metadata())
		if t.old.ModelSHA256 != info.SHA256 || t.old.SchemaVersion != index.SchemaVersion {
			return t, fmt.Errorf("collection %s was built with %s %s, schema %d; this build uses %s %s, schema %d: run `cmdai index init --force` to rebuild it",
				o.Collection, t.old.Model, t.old.ModelVariant, t.old.SchemaVersion, info.Model, info.Variant, index.SchemaVersion)
		}
		if t.held, err = readHeld(ctx, coll, nil); err != nil {
			return t, err
		}
	}
	// A build aside is marked incomplete until the end, so that status
	// can tell an interrupted one. An update in place of a complete index
	// leaves it marked complete: every command stays in it (old or new
	// records: deletions come last), it answers throughout, and staleness
	// shows what an interrupted update did not reach.
	if t.coll, err = store.CreateCollection(ctx, t.name, meta.Map()); err != nil {
		return t, err
	}
	if t.name != o.Collection || !t.old.Complete {
		if err := t.coll.SetMetadata(ctx, meta.Map()); err != nil {
			return t, err
		}
	}
	return t, nil
}

// resumeAside keeps what an interrupted build of the same kind left in
// the collection aside, and removes what one of another kind left.
func (t *target) resumeAside(ctx context.Context, store *chroma.Store, modelSHA string, commands []string) error {
	coll, err := store.OpenCollection(ctx, t.name)
	switch {
	case errors.Is(err, chroma.ErrNoCollection):
		return nil
	case err != nil:
		return err
	case !resumable(index.ParseMeta(coll.Metadata()), modelSHA, commands):
		if err := store.DeleteCollection(ctx, t.name); err != nil {
			return fmt.Errorf("remove the leftover of an interrupted build: %w", err)
		}
		return nil
	}
	t.held, err = readHeld(ctx, coll, nil)
	return err
}

// resumable says whether what an interrupted build left aside can be kept:
// written by the same model and schema, and by a whole-machine build (one
// of some commands would leave records of others in the new index).
func resumable(m index.Meta, modelSHA string, commands []string) bool {
	return len(commands) == 0 && m.ModelSHA256 == modelSHA && m.SchemaVersion == index.SchemaVersion
}

// readHeld notes, for each record of coll (those matching where, all when
// nil), what decides whether a build keeps it.
func readHeld(ctx context.Context, coll *chroma.Collection, where map[string]string) (map[string]stored, error) {
	recs, err := coll.All(ctx, chroma.Include{Where: where})
	if err != nil {
		return nil, fmt.Errorf("read the records of %s: %w", coll.Name(), err)
	}
	held := make(map[string]stored, len(recs))
	for _, r := range recs {
		md := metaOf(r)
		held[r.ID] = stored{key: keyOf(md), command: md.Command, source: md.Source}
	}
	return held, nil
}

// finish is the last stage: it deletes what the sources no longer give,
// marks the collection complete with what the build learned, and swaps a
// collection built aside in as the index named index.
func (t *target) finish(ctx context.Context, store *chroma.Store, name string, s *stream, meta index.Meta, docs int) error {
	pageGone, docGone := s.gone()
	if err := t.coll.Delete(ctx, docGone); err != nil {
		return err
	}
	s.sum.DocsDeleted = len(docGone)
	if err := t.coll.Delete(ctx, pageGone); err != nil {
		return err
	}
	s.sum.Deleted = len(pageGone)
	n, err := t.coll.Count(ctx)
	if err != nil {
		return err
	}
	s.sum.Records = n
	meta.Complete, meta.Commands, meta.Chunks, meta.Skipped, meta.Failed = true, s.sum.Commands+s.sum.Subcommands+docs, n, s.skipped, s.failed
	if t.name == name {
		// updated in place: the records it did not rewrite keep their
		// origin (a rebuild aside, init --force, is this machine's own)
		meta.ImportedFrom, meta.Unsigned = t.old.ImportedFrom, t.old.Unsigned
	}
	if len(s.only) > 0 && len(t.held) > 0 {
		// a partial build: the other commands are still there
		if meta.Commands, err = countCommands(ctx, t.coll); err != nil {
			return err
		}
		meta.Skipped = keptOthers(t.old.Skipped, s.skipped, s.only)
		meta.Failed = keptOthers(t.old.Failed, s.failed, s.only)
	}
	if err := t.coll.SetMetadata(ctx, meta.Map()); err != nil {
		return err
	}
	if t.name != name {
		return swap.Swap(ctx, store, t.name, name)
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
