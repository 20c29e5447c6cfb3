package search

import (
	"strings"

	"slices"
	"sort"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/shown"
)

// PageName is the indexed name of a command as a user may write it:
// "git commit" is git-commit, the subcommand's page; one word is
// itself.
func PageName(command string) string {
	return strings.Join(strings.Fields(command), "-")
}

// chunksPerCommand is how many chunks are fetched per command asked for
// (at least minChunks): a command's options and sections compete with
// each other, so the nearest chunks name fewer commands than they are.
const (
	chunksPerCommand = 20
	minChunks        = 100
)

// How chunk similarities add up to a command's score. Tuned on
// cmd/cmdai/testdata/requests.jsonl and checked on 396 held-out NL2Bash
// requests (BENCHMARKS.md): against the best chunk alone, hit@5 went from
// 54 % to 62 % and hit@1 from 28 % to 36 % on the held-out set.
const (
	// summaryBonus favours a match on what the command is for (NAME,
	// SYNOPSIS, the start of DESCRIPTION) over one on a detail: "count
	// lines" should find wc before grep's --count.
	summaryBonus = 0.08
	// supportWeight x the next supportChunks best chunks: a command that
	// several chunks answer is a better bet than one lucky option.
	supportWeight = 0.05
	supportChunks = 3
)

// priorityBonus is added to a custom doc's command score (on the cosine
// scale): its author says how strongly to prefer it.
var priorityBonus = map[string]float64{"high": 0.05, "low": -0.05}

// rule is how one ranking turns a command's chunk scores into the
// command's score: its best chunk (plus summaryBonus for a summary), plus
// support x its next supportChunks chunks weighted the same way, then the
// custom doc's priority. Each ranking has its own scale, hence its own
// weights; the rule itself is written once, in aggregate.
type rule struct {
	summaryBonus float64
	support      float64
	priority     func(score float64, priority string) float64
}

// semanticRule: cosine similarities; priority adds priorityBonus.
var semanticRule = rule{summaryBonus: summaryBonus, support: supportWeight,
	priority: func(s float64, p string) float64 { return s + priorityBonus[p] }}

// keywordRule: BM25 scores have no fixed scale, so a summary gets no
// bonus, support weighs twice as much, and priority scales the score
// (high x1.2, low x0.8).
var keywordRule = rule{support: 2 * supportWeight,
	priority: func(s float64, p string) float64 { return s * (1 + 4*priorityBonus[p]) }}

// chunk is one scored chunk of a ranking, with its record's metadata and
// the command it belongs to.
type chunk struct {
	command string
	md      index.Metadata
	match   shown.Match
}

// aggregate groups chunks by command (in order of first appearance, each
// command's details from its first chunk), scores each command by r,
// and returns at most k commands, best first, each with its matches best
// first.
func aggregate(chunks []chunk, r rule, k int) []shown.CommandHit {
	byCmd := map[string]*shown.CommandHit{}
	var order []*shown.CommandHit
	for _, ch := range chunks {
		c := byCmd[ch.command]
		if c == nil {
			c = commandOf(ch.md)
			byCmd[ch.command] = c
			order = append(order, c)
		}
		c.Matches = append(c.Matches, ch.match)
	}
	for _, c := range order {
		c.Score = r.priority(r.score(c.Matches), c.Priority)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Score > order[j].Score })
	if len(order) > k {
		order = order[:k]
	}
	out := make([]shown.CommandHit, len(order))
	for i, c := range order {
		sort.SliceStable(c.Matches, func(a, b int) bool { return c.Matches[a].Score > c.Matches[b].Score })
		out[i] = *c
	}
	return out
}

// score is a command's score from its matches before priority.
func (r rule) score(ms []shown.Match) float64 {
	w := make([]float64, len(ms))
	for i, m := range ms {
		w[i] = m.Score
		if m.Kind == index.KindSummary {
			w[i] += r.summaryBonus
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(w)))
	score := w[0]
	for _, s := range w[1:min(len(w), 1+supportChunks)] {
		score += r.support * s
	}
	return score
}

// Group aggregates chunk hits per command by the semantic rule. A
// match's Score is its cosine similarity; a command's Score ranks
// commands. Records without a command are left out.
func Group(hits []chroma.Hit, k int) []shown.CommandHit { return groupBy(hits, semanticRule, k) }

// groupBy aggregates chunk hits per command by rule r.
func groupBy(hits []chroma.Hit, r rule, k int) []shown.CommandHit {
	chunks := make([]chunk, 0, len(hits))
	for _, h := range hits {
		md := metaOf(h.Record)
		if md.Command == "" {
			continue
		}
		chunks = append(chunks, chunk{command: md.Command, md: md, match: matchOf(h)})
	}
	return aggregate(chunks, r, k)
}

// commandOf starts a command's hit from the metadata of its first record.
func commandOf(md index.Metadata) *shown.CommandHit {
	return &shown.CommandHit{Command: md.Command, Parent: md.Parent, Description: md.Description, Version: md.ShownVersion(), Package: md.Package,
		ManSection: md.ManSection, InstalledPath: md.InstalledPath, Aliases: slices.Clone(md.Aliases),
		Source: string(md.Source), Priority: md.Priority}
}

func matchOf(h chroma.Hit) shown.Match {
	md := metaOf(h.Record)
	return shown.Match{ID: h.ID, Score: 1 - h.Distance, Text: h.Document, Kind: md.Kind, Section: md.Section, Option: md.Option}
}
