package builder

import (
	"context"
	"strings"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/builder/stale"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/swap"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/index"
)

// CollectionStatus describes one cmdai collection.
type CollectionStatus struct {
	Name    string     `json:"name"`
	Records int        `json:"records_count"`
	Meta    index.Meta `json:"metadata"`
	// Current is true for this machine's distribution.
	Current bool `json:"current"`
	// Temporary marks a collection a build or an import writes aside
	// (and one an interrupted run left): not an index to query.
	Temporary bool             `json:"temporary,omitempty"`
	Stale     *stale.Staleness `json:"staleness,omitempty"`
	// Verification of the current index's records' authenticators.
	Verification *index.Verification `json:"verification,omitempty"`
}

// Temporary reports whether name is a collection a build or an import
// works with beside an index.
func Temporary(name string) bool {
	for _, s := range []string{buildSuffix, swap.ImportSuffix, swap.OldSuffix} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Collections lists the cmdai collections on the server.
func Collections(ctx context.Context, store *chroma.Store, current string) ([]CollectionStatus, error) {
	infos, err := store.ListCollections(ctx, distro.CollectionPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]CollectionStatus, len(infos))
	for i, c := range infos {
		out[i] = CollectionStatus{Name: c.Name, Records: c.Count, Meta: index.ParseMeta(c.Metadata), Current: c.Name == current, Temporary: Temporary(c.Name)}
	}
	return out, nil
}

// Stale compares the commands the index holds (their summary records'
// fingerprints) with what a quick scan of this machine finds.
func Stale(ctx context.Context, coll *chroma.Collection, popts pages.Options, names bool) (*stale.Staleness, error) {
	skipped := index.ParseMeta(coll.Metadata()).Skipped
	recs, err := coll.All(ctx, chroma.Include{Where: index.WhereKind(index.KindSummary)})
	if err != nil {
		return nil, err
	}
	installed, err := pages.ScanInstalled(ctx, popts)
	if err != nil {
		return nil, err
	}
	return staleness(recs, installed, skipped, names), nil
}

// staleness compares the summary records and skipped commands of an index
// with the installed commands (stale.Compare).
func staleness(recs []chroma.Record, installed []pages.Installed, skipped map[string]string, names bool) *stale.Staleness {
	mds := make([]index.Metadata, len(recs))
	for i, r := range recs {
		mds[i] = metaOf(r)
	}
	return stale.Compare(mds, installed, skipped, names)
}
