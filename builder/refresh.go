package builder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// RefreshPlan is what a refresh has to do, from the fingerprints alone.
type RefreshPlan struct {
	Changed []string `json:"changed"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// Empty reports whether the index is current.
func (p RefreshPlan) Empty() bool { return len(p.Changed)+len(p.Added)+len(p.Removed) == 0 }

// PlanRefresh compares the index with a quick scan of this machine (paths,
// sizes and times of executables and man pages; no page is read).
func PlanRefresh(ctx context.Context, coll *chroma.Collection, popts pages.Options) (RefreshPlan, error) {
	st, err := Stale(ctx, coll, popts, true)
	if err != nil {
		return RefreshPlan{}, err
	}
	p := RefreshPlan{Changed: []string{}, Added: []string{}, Removed: []string{}}
	for _, n := range st.Names {
		switch n[0] {
		case '~':
			p.Changed = append(p.Changed, n[1:])
		case '+':
			p.Added = append(p.Added, n[1:])
		case '-':
			p.Removed = append(p.Removed, n[1:])
		}
	}
	return p, nil
}

// RefreshSummary is what a refresh did.
type RefreshSummary struct {
	Plan RefreshPlan `json:"plan"`
	// Build is the partial build of the changed and added commands (nil
	// when there were none).
	Build   *Summary `json:"build,omitempty"`
	Deleted int      `json:"deleted_records"`
	// DocsWritten and DocsDeleted count custom-doc and hint records.
	DocsWritten int            `json:"docs_written"`
	DocsDeleted int            `json:"docs_deleted"`
	Total       pages.Duration `json:"total_seconds"`
}

// Refresh brings the index up to date with this machine: it re-parses and
// re-embeds only commands whose executable or man page changed (and of
// their chunks only those whose text changed: Build keeps the others),
// indexes new commands and deletes uninstalled ones. The embedders are
// opened only if something needs embedding; with nothing changed, a
// refresh reads no page and loads no model.
//
// open fills o's Embedders (and Cache) when they are needed. A
// collection that does not exist is exit 3, saying what to run.
func Refresh(ctx context.Context, store *chroma.Store, o Options, open func(*Options) error) (RefreshSummary, error) {
	start := time.Now()
	var sum RefreshSummary
	coll, err := store.OpenCollection(ctx, o.Collection)
	if errors.Is(err, chroma.ErrNoCollection) {
		return sum, exitcode.With(exitcode.NoIndex, fmt.Errorf("no index %s on %s to refresh: build it with `cmdai index init`", o.Collection, store.URL))
	}
	if err != nil {
		return sum, err
	}
	if err := coll.MetadataErr(); err != nil {
		// writing it back would seal what someone else wrote
		return sum, fmt.Errorf("index %s: %s", o.Collection, index.MetadataFailure(err))
	}
	if sum.Plan, err = PlanRefresh(ctx, coll, o.Pages); err != nil {
		return sum, err
	}
	for _, cmd := range sum.Plan.Removed {
		recs, err := coll.All(ctx, chroma.Include{Where: index.WhereCommand(cmd)})
		if err != nil {
			return sum, err
		}
		ids := make([]string, len(recs))
		for i, r := range recs {
			ids[i] = r.ID
		}
		if err := coll.Delete(ctx, ids); err != nil {
			return sum, err
		}
		sum.Deleted += len(ids)
	}
	todo := append(append([]string(nil), sum.Plan.Changed...), sum.Plan.Added...)
	sort.Strings(todo)
	switch {
	case len(todo) > 0:
		if err := open(&o); err != nil {
			return sum, err
		}
		o.Pages.Commands = todo
		o.Force = false
		b, err := Build(ctx, store, o)
		sum.Build = &b
		if err != nil {
			return sum, err
		}
		sum.Deleted += b.Deleted
	case len(sum.Plan.Removed) > 0:
		// only deletions: the counts and the skipped list change
		meta := index.ParseMeta(coll.Metadata())
		if meta.Commands, err = countCommands(ctx, coll); err != nil {
			return sum, err
		}
		if meta.Chunks, err = coll.Count(ctx); err != nil {
			return sum, err
		}
		for _, c := range sum.Plan.Removed {
			delete(meta.Skipped, c)
			delete(meta.Failed, c)
		}
		if err := coll.SetMetadata(ctx, meta.Map()); err != nil {
			return sum, err
		}
	}
	// Users' docs: cheap to read, so always compared; embedded only when
	// one changed.
	w, d, err := syncDocs(ctx, coll, o.Docs, o.Pages.Distro, o.Cache, func() ([]embed.Embedder, error) {
		if len(o.Embedders) == 0 {
			if err := open(&o); err != nil {
				return nil, err
			}
		}
		return o.Embedders, nil
	})
	if err != nil {
		return sum, err
	}
	// the partial build wrote the docs of the commands it rebuilt
	sum.DocsWritten, sum.DocsDeleted = w, d
	if sum.Build != nil {
		sum.DocsWritten += sum.Build.DocsWritten
		sum.DocsDeleted += sum.Build.DocsDeleted
	}
	sum.Total = pages.Duration(time.Since(start))
	return sum, nil
}
