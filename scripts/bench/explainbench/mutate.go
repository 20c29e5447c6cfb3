package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/scripts/bench/explainbench/mutate"
)

// mutation is one real line with one option changed.
type mutation struct {
	Part    string `json:"part"`
	N       int    `json:"n"`
	Line    string `json:"line"`
	Mutated string `json:"mutated"`
	Command string `json:"command"`
	Kind    string `json:"kind"`
	From    string `json:"from"`
	To      string `json:"to"`
	// Donor is the similar command whose option was taken.
	Donor string `json:"donor,omitempty"`
	Start int    `json:"start"`
	End   int    `json:"end"` // of the new text in Mutated
	// Flagged: the new option's word is an unknown option; LineFlagged:
	// any word of the line is.
	Flagged     bool   `json:"flagged"`
	LineFlagged bool   `json:"line_flagged"`
	Verdict     string `json:"verdict"`
	Note        string `json:"note,omitempty"`
}

// flagsOf is a command's documentation (its records and installed
// page) as a flag set, cached.
func (b *bench) flagsOf(ctx context.Context, cmd, page string) *mutate.FlagSet {
	key := cmd + "\x00" + page
	if fs, ok := b.flagSets[key]; ok {
		return fs
	}
	var texts []string
	if d, ok := b.doc(ctx, cmd); ok {
		for _, r := range d.Records {
			texts = append(texts, r.Text, r.Option)
		}
	}
	if b.o.man && page != "" {
		texts = append(texts, b.page(page))
	}
	fs := mutate.NewFlagSet(texts...)
	b.flagSets[key] = fs
	return fs
}

func (b *bench) spell(cmd string) map[string]bool {
	if s, ok := b.spellOf[cmd]; ok {
		return s
	}
	s := mutate.Spellings(b.docs[cmd])
	b.spellOf[cmd] = s
	return s
}

// similar is the command of the corpus's (those looked up) most like cmd.
func (b *bench) similar(cmd string) string {
	if s, ok := b.similarOf[cmd]; ok {
		return s
	}
	names := make([]string, 0, len(b.docs))
	for n := range b.docs {
		names = append(names, n)
	}
	sort.Strings(names)
	s := mutate.MostSimilar(cmd, names, b.spell)
	b.similarOf[cmd] = s
	return s
}

// detect mutates up to o.mutations lines of each half: lines that parse
// and flag nothing, with a matched option of a documented command; each
// line's option and first kind chosen by the seed, the kinds in turn, the
// next kind when one has no valid mutation there.
func (b *bench) detect(ctx context.Context, results []lineResult) []mutation {
	var out []mutation
	for _, part := range []string{"train", "test"} {
		var cands []*lineResult
		for i := range results {
			r := &results[i]
			if r.Part == part && r.Parsed && !r.Flagged && len(r.Units) > 0 {
				cands = append(cands, r)
			}
		}
		key := func(r *lineResult) uint64 { return mutate.Hash64(fmt.Sprint(b.o.seed, ":mut:", r.N)) }
		sort.SliceStable(cands, func(i, k int) bool { return key(cands[i]) < key(cands[k]) })
		done := 0
		for _, r := range cands {
			if done >= b.o.mutations {
				break
			}
			if m, ok := b.mutateLine(ctx, r, done); ok {
				b.judgeMutation(ctx, &m)
				if b.err != nil {
					return out
				}
				out = append(out, m)
				done++
			}
		}
	}
	return out
}

func (b *bench) mutateLine(ctx context.Context, r *lineResult, done int) (mutation, bool) {
	var us []unit
	for _, u := range r.Units {
		if u.Raw(r.Line) {
			us = append(us, u)
		}
	}
	if len(us) == 0 {
		return mutation{}, false
	}
	u := us[mutate.Hash64(fmt.Sprint(b.o.seed, ":unit:", r.N))%uint64(len(us))]
	fs := b.flagsOf(ctx, u.cmd, u.page)
	first := done % len(mutate.Kinds)
	for t := range mutate.Kinds {
		kind := mutate.Kinds[(first+t)%len(mutate.Kinds)]
		var donor map[string]bool
		dname := ""
		if kind == mutate.Similar {
			if dname = b.similar(u.cmd); dname == "" {
				continue
			}
			donor = b.spell(dname)
		}
		seed := b.o.seed + ":" + kind + ":" + r.Line
		ml, to, s, e, ok := mutate.Apply(r.Line, u.Unit, fs, mutate.Candidates(kind, seed, u.Unit, donor))
		if !ok {
			continue
		}
		return mutation{Part: r.Part, N: r.N, Line: r.Line, Mutated: ml, Command: u.cmd, Kind: kind, From: u.Flag, To: to,
			Donor: dname, Start: s, End: e}, true
	}
	return mutation{}, false
}

// judgeMutation explains the mutated line: is the new option's word an
// unknown option?
func (b *bench) judgeMutation(ctx context.Context, m *mutation) {
	res, err := explain.Explain(ctx, m.Mutated, b.lookup, b.opts)
	if err != nil {
		m.Verdict, m.Note = "error", err.Error()
		return
	}
	m.LineFlagged = res.UnknownCount > 0
	for _, c := range res.Commands {
		for _, w := range c.Words {
			if w.End <= m.Start || w.Start >= m.End {
				continue
			}
			m.Verdict, m.Note = string(w.Verdict), w.Note
			for _, f := range w.Flags {
				if f.Start < m.End && f.End > m.Start && f.Of == "" {
					m.Verdict, m.Note = string(f.Verdict), f.Note
				}
			}
			if w.Verdict == judge.UnknownOption {
				m.Flagged = true
			}
		}
	}
}
