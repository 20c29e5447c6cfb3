package builder

import (
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
)

// toChroma is the form of r the server stores.
func toChroma(r index.Record) chroma.Record {
	return chroma.Record{ID: r.ID, Document: r.Text, Metadata: r.Metadata.ToChroma(), Embedding: r.Embedding}
}

// metaOf is a stored record's typed metadata.
func metaOf(r chroma.Record) index.Metadata { return index.FromChroma(r.Metadata) }

// keyOf is what decides that a stored record needs no rewrite.
//
// The owning package's name and version are part of it, so that a
// record written before they were kept (or before an upgrade that kept
// the executable's size and time) is rewritten with them: its vector
// comes from the embedding cache. A command no package owns keeps the
// key it had.
func keyOf(md index.Metadata) string {
	key := md.ContentHash + "/" + md.Fingerprint
	if md.Package != "" {
		key += "/" + md.Package + "=" + md.PackageVersion
	}
	if len(md.References) > 0 {
		// a summary record written before references were kept is
		// rewritten with them (its vector from the cache)
		key += "/refs=" + strings.Join(md.References, ",")
	}
	return key
}
