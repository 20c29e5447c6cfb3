// Package pagestats derives per-command figures from a keyword index,
// once per index: a BM25 index over whole pages, each command's number
// of chunks, how many other pages refer to it, and how many other pages
// name it in their text.
package pagestats

import (
	"math"
	"strings"
	"sync"

	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/ranker"
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
	mentions  map[string]int // other pages naming each command in their text
}

// Pages returns kw's whole-page index: each command's chunks as one
// document.
func Pages(kw *bm25.Index) *bm25.Index {
	lastPages.Lock()
	defer lastPages.Unlock()
	if lastPages.kw != kw {
		// the mentions scan reads every chunk again (about 50 ms here):
		// beside the page index, on the other core, it costs no wall time
		mentions := make(chan map[string]int, 1)
		go func() { mentions <- mentionsOf(kw) }()
		lastPages.kw, lastPages.pages = kw, buildPageIndex(kw)
		lastPages.sizes, lastPages.refs = chunksPerCommandOf(kw), referrersOf(kw)
		lastPages.mentions = <-mentions
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
	by := pagesBy{}
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
			by.add(c, md.Command)
		}
	}
	return by.counts()
}

// Mentions returns, for each command of kw, how many other commands'
// pages name it in their text (mentionsOf).
func Mentions(kw *bm25.Index) map[string]int {
	Pages(kw)
	lastPages.Lock()
	defer lastPages.Unlock()
	return lastPages.mentions
}

// Features returns what sets learned mode's per-command features of a
// command, the ones that do not depend on the request, from kw's
// figures: its page's size, the pages referring to it and naming it, its
// name's length. kw's figures are looked up once, not per candidate.
func Features(kw *bm25.Index) func(f map[string]float64, command string) {
	Pages(kw)
	lastPages.Lock()
	sizes, refs, mentions := lastPages.sizes, lastPages.refs, lastPages.mentions
	lastPages.Unlock()
	return func(f map[string]float64, command string) {
		f[ranker.PageSize] = math.Log1p(float64(sizes[command])) / 5
		f[ranker.Refs] = math.Log1p(float64(refs[command])) / 5
		f[ranker.NameLen] = math.Log(float64(max(1, len(command))))
		f[ranker.Mentions] = math.Log1p(float64(mentions[command])) / 5
	}
}

// mentionsOf counts, for each command of kw, the other pages (subcommand
// pages too) whose text names it as a word: "cp" in "cp -a src dst" or
// "see cp(1)", never inside a path (/usr/bin/cp), a flag (--cp) or a
// longer word (cpio). How often other pages use a command is a prior
// that SEE ALSO (referrersOf) misses: a request for "copy a file" means
// cp far more often than the rarer tools that also copy. Names match
// exactly (case kept): "file" the word and file(1) cannot be told apart,
// which the learned weight prices in.
func mentionsOf(kw *bm25.Index) map[string]int {
	names := map[string]bool{}
	// maybe[first byte] has bit n set when some name of n bytes starts
	// with it: most words are no name, and this spares the map lookup
	var maybe [256]uint64
	for i := range kw.Len() {
		_, md := kw.Chunk(i)
		names[md.Command] = true
		if n := len(md.Command); n > 0 && n < 64 {
			maybe[md.Command[0]] |= 1 << n
		}
	}
	by := pagesBy{}
	for i := range kw.Len() {
		text, md := kw.Chunk(i)
		nameWords(text, func(w string) {
			if len(w) >= 64 || maybe[w[0]]&(1<<len(w)) == 0 || !names[w] || w == md.Command {
				return
			}
			by.add(w, md.Command)
		})
	}
	return by.counts()
}

// pagesBy holds, for each command, the other pages that point at it.
type pagesBy map[string]map[string]bool

func (p pagesBy) add(command, page string) {
	if p[command] == nil {
		p[command] = map[string]bool{}
	}
	p[command][page] = true
}

// counts says how many pages point at each command.
func (p pagesBy) counts() map[string]int {
	out := make(map[string]int, len(p))
	for c, from := range p {
		out[c] = len(from)
	}
	return out
}

// nameWords calls f with each word of text a command name could be:
// runs of letters, digits and _ . + - (apt-get, mkfs.ext4, g++), without
// a sentence's final dot, leaving out flags (-x, --cp) and paths. It
// slices text instead of splitting it: every process that ranks scans
// every chunk once (about 20 MB here), so it allocates nothing.
func nameWords(text string, f func(word string)) {
	for i := 0; i < len(text); {
		if !nameByte(text[i]) {
			i++
			continue
		}
		j, path := i, false
		for ; j < len(text) && (nameByte(text[j]) || text[j] == '/'); j++ {
			path = path || text[j] == '/'
		}
		w := strings.TrimRight(text[i:j], ".")
		if !path && w != "" && w[0] != '-' {
			f(w)
		}
		i = j
	}
}

// nameByte says b can be part of a command's name: ASCII, so that typographic
// quotes and dashes (“ed”, cp—the) end a word.
func nameByte(b byte) bool { return nameBytes[b] }

var nameBytes = func() (t [256]bool) {
	for b := range 256 {
		t[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("_.+-", byte(b)) >= 0
	}
	return t
}()

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
