// Package stale compares an index with the commands installed now:
// which it holds that changed or went, and which it lacks.
package stale

import (
	"fmt"
	"sort"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/index"
)

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

// Compare compares the summary records' metadata and the skipped commands
// (name: fingerprint) of an index with the installed commands; names
// lists the stale ones (~changed, +added, -removed). Each command is judged by its own source:
// one read from its man page by the executable's and the page's
// fingerprint; one read from its --help by the executable's alone (and
// as changed once it has a man page, which a build reads instead); only
// an uninstalled command is removed. A command without a man page is
// never counted as not in the index: only the user's own init runs
// --help for one.
func Compare(recs []index.Metadata, installed []pages.Installed, skipped map[string]string, names bool) *Staleness {
	now := make(map[string]string, len(installed))
	bare := map[string]string{} // commands without a man page
	for _, c := range installed {
		if c.NoManPage {
			bare[c.Command] = c.Fingerprint
		} else {
			now[c.Command] = c.Fingerprint
		}
	}
	st := &Staleness{}
	known := map[string]bool{}
	var list []string
	for _, md := range recs {
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
		manNow := ok
		if b, noPage := bare[cmd]; !ok && noPage && md.Source == index.SourceHelp {
			cur, ok = b, true
		}
		switch {
		case !ok:
			st.Removed++
			list = append(list, "-"+cmd)
		case cur != fp || (manNow && md.Source == index.SourceHelp):
			// (read from --help, it has a man page now: the build reads that)
			st.Changed++
			list = append(list, "~"+cmd)
		}
	}
	for _, c := range installed {
		if c.NoManPage {
			continue
		}
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
