package build

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/build/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/ship"
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
	Temporary bool       `json:"temporary,omitempty"`
	Stale     *Staleness `json:"staleness,omitempty"`
	// Verification of the current index's records' authenticators.
	Verification *index.Verification `json:"verification,omitempty"`
}

// Temporary reports whether name is a collection a build or an import
// works with beside an index.
func Temporary(name string) bool {
	for _, s := range []string{buildSuffix, ship.ImportSuffix, ship.OldSuffix} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Staleness compares an index with the commands installed now.
type Staleness struct {
	Indexed int `json:"indexed_commands"`
	// Changed: executable or man page differs (path, size or time).
	Changed int `json:"changed_count"`
	// Added: installed with a man page, not in the index.
	Added int `json:"added_count"`
	// Removed: in the index, no longer installed.
	Removed int      `json:"removed_count"`
	Stale   int      `json:"stale"`
	Names   []string `json:"stale_commands,omitempty"`
}

// Summary says how the index compares with this machine in one line. The
// counts are not put over the number of indexed commands: commands
// installed but not in the index (new, or all of them when the index was
// built with --command or on another machine) can outnumber it, which
// read "stale: 890 of 30 commands".
func (s *Staleness) Summary() string {
	if s.Stale == 0 {
		return fmt.Sprintf("up to date: %d commands indexed, none changed, new or removed", s.Indexed)
	}
	return fmt.Sprintf("stale: %d commands indexed: %d changed, %d removed since; %d installed commands not in the index",
		s.Indexed, s.Changed, s.Removed, s.Added)
}

// Collections lists the cmdai collections on the server.
func Collections(ctx context.Context, store *chroma.Store, current string) ([]CollectionStatus, error) {
	infos, err := store.ListCollections(ctx, "cmdai_")
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
func Stale(ctx context.Context, coll *chroma.Collection, popts pages.Options, names bool) (*Staleness, error) {
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
// with the installed commands.
func staleness(recs []chroma.Record, installed []pages.Installed, skipped map[string]string, names bool) *Staleness {
	now := make(map[string]string, len(installed))
	for _, c := range installed {
		now[c.Command] = c.Fingerprint
	}
	st := &Staleness{}
	known := map[string]bool{}
	var list []string
	for _, r := range recs {
		md := metaOf(r)
		cmd, fp := md.Command, md.Fingerprint
		if cmd == "" || md.Source.IsDoc() {
			continue
		}
		st.Indexed++
		known[cmd] = true
		for _, name := range md.Aliases {
			known[name] = true
		}
		cur, ok := now[cmd]
		switch {
		case !ok:
			st.Removed++
			list = append(list, "-"+cmd)
		case cur != fp:
			st.Changed++
			list = append(list, "~"+cmd)
		}
	}
	for _, c := range installed {
		fp, wasSkipped := skipped[c.Command]
		switch {
		case known[c.Command]:
		case wasSkipped && fp == c.Fingerprint:
			// its page gave nothing last time and has not changed
		case wasSkipped:
			st.Changed++
			list = append(list, "~"+c.Command)
		default:
			st.Added++
			list = append(list, "+"+c.Command)
		}
	}
	st.Stale = st.Changed + st.Added + st.Removed
	if names {
		sort.Slice(list, func(i, j int) bool { return list[i][1:] < list[j][1:] })
		st.Names = list
	}
	return st
}
