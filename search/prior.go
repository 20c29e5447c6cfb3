package search

import "github.com/cmdai/cmdai/chroma"

// corePriorities are the Debian package priorities of a base system: a
// command from one of them is what most requests mean when a page from
// an optional package says much the same (rename, the Perl one, against
// mv).
var corePriorities = map[string]bool{"required": true, "important": true, "standard": true}

// coreRanking is the package-priority prior as a fusion channel: the
// semantic ranking sem kept to commands of a core priority (read from
// the semantic chunks hits), so such a command gains by its rank among
// them: the best-matching base command gains most. Indexes built before priorities were kept give it nothing.
func coreRanking(sem []CommandHit, hits []chroma.Hit) []CommandHit {
	core := map[string]bool{}
	for _, h := range hits {
		md := metaOf(h.Record)
		if corePriorities[md.PackagePriority] {
			core[md.Command] = true
		}
	}
	var out []CommandHit
	for _, h := range sem {
		if core[h.Command] {
			out = append(out, CommandHit{Command: h.Command})
		}
	}
	return out
}
