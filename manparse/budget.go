package manparse

import "sort"

// Budget bounds the prose of one page: it keeps the page's summary,
// options and examples, and of its other sections' prose (KindSection)
// as many chunks as fit in budget word pieces, the first piece of each
// section before any continuation, page order within each. It returns the
// kept chunks in their original order and how many were left out.
//
// Embedding time grows with word pieces, and the long prose of a handful
// of huge pages (bash, tmux, gpg, java) is a third of a machine's text,
// while what an assistant needs to choose and use a command (what it is
// for, its flags, its examples) is in the chunks always kept.
// budget <= 0 keeps everything.
func Budget(chunks []Chunk, budget int) (kept []Chunk, dropped int) {
	if budget <= 0 {
		return chunks, 0
	}
	var prose []int
	total := 0
	for i, c := range chunks {
		if c.Kind == KindSection {
			prose = append(prose, i)
			total += c.Tokens
		}
	}
	if total <= budget {
		return chunks, 0
	}
	sort.SliceStable(prose, func(a, b int) bool { return chunks[prose[a]].part == 0 && chunks[prose[b]].part > 0 })
	drop := make([]bool, len(chunks))
	used := 0
	for _, i := range prose {
		if used+chunks[i].Tokens <= budget {
			used += chunks[i].Tokens
		} else {
			drop[i] = true
			dropped++
		}
	}
	kept = make([]Chunk, 0, len(chunks)-dropped)
	for i, c := range chunks {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	return kept, dropped
}
