// Package pagestats derives per-command figures from a keyword index,
// once per index: a BM25 index over whole pages, each command's number
// of chunks, and how many other pages refer to it.
package pagestats

import (
	"strings"
	"sync"

	"github.com/cmdai/cmdai/search/bm25"
)

// lastPages is what this package derives from the keyword index last
// asked about, built on first use from the chunks it keeps (0.3 s for
// 18,210 chunks here; a search.Searcher is a value, copied freely, so it
// cannot hold it itself). One only: a serve that reloads its index drops
// the old one's.
var lastPages struct {
	sync.Mutex
	kw, pages *bm25.Index
	sizes     map[string]int // chunks per command
	refs      map[string]int // pages referring to each command
}

// Pages returns kw's whole-page index: each command's chunks as one
// document.
func Pages(kw *bm25.Index) *bm25.Index {
	lastPages.Lock()
	defer lastPages.Unlock()
	if lastPages.kw != kw {
		lastPages.kw, lastPages.pages = kw, buildPageIndex(kw)
		lastPages.sizes, lastPages.refs = chunksPerCommandOf(kw), referrersOf(kw)
	}
	return lastPages.pages
}

// Sizes returns how many chunks each command of kw has, and how many
// other commands' pages refer to it (Referrers).
func Sizes(kw *bm25.Index) (sizes, refs map[string]int) {
	Pages(kw)
	lastPages.Lock()
	defer lastPages.Unlock()
	return lastPages.sizes, lastPages.refs
}

// referrersOf counts, for each command of kw, the other commands whose
// page (not a subcommand's) refers to it by name or alias (index.Metadata.References, on
// summary records; an index written before they were kept has none).
// References are lowercased (manparse), so names are matched regardless
// of case: "filecheck-14(1)" is FileCheck-14.
func referrersOf(kw *bm25.Index) map[string]int {
	byLower := map[string]string{}
	for i := range kw.Len() {
		_, md := kw.Chunk(i)
		byLower[strings.ToLower(md.Command)] = md.Command
		for _, a := range md.Aliases {
			byLower[strings.ToLower(a)] = md.Command
		}
	}
	by := map[string]map[string]bool{}
	for i := range kw.Len() {
		_, md := kw.Chunk(i)
		if md.Parent != "" {
			// a subcommand's page (git-commit(1)) refers mostly to its
			// siblings: counting it would make every git-* page a
			// well-referred command, and would change the figure the
			// learned weights were fitted on for the others
			continue
		}
		for _, name := range md.References {
			c, ok := byLower[strings.ToLower(name)]
			if !ok || c == md.Command {
				continue
			}
			if by[c] == nil {
				by[c] = map[string]bool{}
			}
			by[c][md.Command] = true
		}
	}
	out := make(map[string]int, len(by))
	for c, from := range by {
		out[c] = len(from)
	}
	return out
}

func chunksPerCommandOf(kw *bm25.Index) map[string]int {
	out := map[string]int{}
	for i := range kw.Len() {
		_, md := kw.Chunk(i)
		out[md.Command]++
	}
	return out
}

// buildPageIndex indexes each command's chunks as one document.
func buildPageIndex(kw *bm25.Index) *bm25.Index {
	texts := map[string]*strings.Builder{}
	var order []string
	for i := range kw.Len() {
		text, md := kw.Chunk(i)
		b := texts[md.Command]
		if b == nil {
			b = &strings.Builder{}
			texts[md.Command] = b
			order = append(order, md.Command)
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	docs := make([]bm25.Doc, len(order))
	for i, c := range order {
		docs[i] = bm25.Doc{ID: c, Command: c, Text: texts[c].String()}
	}
	// Only Search is asked of it: the pages' text (every chunk again,
	// about 10 MB here) is not kept.
	return bm25.Build(docs).WithoutChunks()
}
