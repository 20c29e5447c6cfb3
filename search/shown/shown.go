// Package shown is what an answer says of each command it names (the
// command and the chunks of it that matched) and how a compact answer
// cuts them to size.
package shown

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search/optrank"
)

// Match is one chunk that answered a request.
type Match struct {
	ID      string     `json:"id,omitempty"`
	Kind    index.Kind `json:"kind"`
	Section string     `json:"section,omitempty"`
	Option  string     `json:"option,omitempty"`
	// Score is the chunk's score in the ranking that found it: its cosine
	// similarity (semantic) or its BM25 score (keyword, BM25 set too);
	// left out when 0 (unknown) and by a compact answer's option or
	// example (MarshalJSON).
	Score float64 `json:"score,omitempty"`
	// BM25 is the keyword score of a chunk the keyword ranking found.
	BM25 float64 `json:"bm25,omitempty"`
	Text string  `json:"text"`
	// Truncated: Text is shortened (a compact answer,
	// search.Request.MatchText): the start of the chunk's text, or an
	// example's start and its command line (exampleCut).
	Truncated bool `json:"truncated,omitempty"`
	// lean: a compact answer's match (Compact cut its text): MarshalJSON
	// leaves out what an option's or example's JSON needs no more.
	lean bool
}

// MarshalJSON is m's JSON. A compact answer's option or example leaves
// out its id, section and scores, and an option its "ls(1) option"
// heading (its label and text stay): an agent builds a command line from
// the option's spelling and text, and the bytes the rest took per match
// kept needed options out of a 4 KB answer (issue 43,
// docs/benchmarks/retrieval.md "A leaner answer"). `--full` and every
// passage keep them all.
func (m Match) MarshalJSON() ([]byte, error) {
	type plain Match
	p := plain(m)
	if m.lean && (m.Kind == index.KindOption || m.Kind == index.KindExample) {
		p.ID, p.Section, p.Score, p.BM25 = "", "", 0, 0
	}
	if m.lean && m.Kind == index.KindOption {
		// "ls(1) option -a, --all\n...": the label and what it does
		// (manparse.SplitChunk reads either form)
		if label, body := manparse.SplitChunk(string(m.Kind), m.Text); label != "" {
			p.Text = strings.TrimSuffix(label+"\n"+body, "\n")
		}
	}
	return json.Marshal(p)
}

// CommandHit is one command with the chunks of it that matched.
type CommandHit struct {
	Command string `json:"command"`
	// Parent is set when Command is a subcommand's page (git-commit):
	// the command a line starts with ("git"); the subcommand is the rest
	// of Command after "Parent-".
	Parent      string  `json:"parent,omitempty"`
	Score       float64 `json:"score"`
	Description string  `json:"description,omitempty"`
	// Version is the version of the installed package owning the
	// command (its Package), or a custom doc's own; empty when neither
	// is known, never the page's title-line source field.
	Version       string `json:"version,omitempty"`
	Package       string `json:"package,omitempty"`
	ManSection    string `json:"man_section,omitempty"`
	InstalledPath string `json:"installed_path,omitempty"`
	// Aliases are the other names of the command (sharing its page): a
	// list, as in `index scan --json`.
	Aliases []string `json:"aliases,omitempty"`
	// Source is man, help, custom (a user's command doc) or hint.
	Source string `json:"source,omitempty"`
	// Priority is a custom doc's: high, medium or low.
	Priority string  `json:"priority,omitempty"`
	Matches  []Match `json:"matches"`
	// Chosen is how many of the first Matches the option ranker chose
	// (options and examples that do what was asked, best first: package
	// optrank): what an answer shows by default (Compact).
	// render.ChosenFlags names the options among them.
	Chosen int `json:"chosen,omitempty"`
}

// Invocation is how a command line starts for this hit: "git commit"
// for git-commit(1)'s page, else the command's name.
func (h CommandHit) Invocation() string {
	if h.Parent != "" {
		if sub, ok := strings.CutPrefix(h.Command, h.Parent+"-"); ok {
			return h.Parent + " " + sub
		}
	}
	return h.Command
}

// DefaultMatches is how many matches of each command an answer shows
// unless asked for more. An assistant picks a command from its
// description and its best chunks (the option or example that answers);
// the 20-odd others of a long page cost it thousands of tokens. Two, each
// cut to DefaultMatchText, keep `-k 5 --json` under 4 KB on most requests
// (p50 3.8 KB over 200 NL2Bash requests); three would make it 4.9 KB
// (BENCHMARKS.md, "bytes per answer").
const DefaultMatches = 2

// DefaultMatchText is how many bytes of a match's text an answer shows
// unless asked for all: the option's or example's first lines, which say
// what it does; the rest of a long chunk is what makes an answer 8 KB.
const DefaultMatchText = 200

// ChosenMatchText is DefaultMatchText for a command's matches past its
// first: the option's spelling and what it does, so that more of the
// options a request needs fit in an answer.
const ChosenMatchText = 120

// Compact keeps the first matches of each command (0: the ones the option
// ranker chose, else DefaultMatches; below 0: all), in the ranking's
// order, and cuts each one's text to text bytes at a word (below 0:
// whole), marking it Truncated. By default (0) an option shows its
// spelling and first sentence (firstSentence), any other match its
// start, within DefaultMatchText for a command's first match and
// ChosenMatchText for the others. A default answer (both 0) then keeps
// what fits optrank.AnswerBudget (optrank.Fit).
func Compact(hits []CommandHit, matches, text int) []CommandHit {
	return compact(hits, matches, text, true)
}

// compact is Compact, the budget measured on the matches' lean JSON
// (what --json prints) or, for the text answer (Whole), on their whole
// JSON: the text prints an option's whole first line, and the byte budget
// of the JSON it had before the lean form keeps `-k 3` within a screen.
func compact(hits []CommandHit, matches, text int, leanSizes bool) []CommandHit {
	fit, explicit := matches == 0 && text == 0, matches != 0
	if matches == 0 {
		matches = DefaultMatches
	}
	for i := range hits {
		ms := hits[i].Matches
		keep := matches
		if keep == DefaultMatches && hits[i].Chosen > 0 && !explicit {
			keep = hits[i].Chosen
		}
		if keep > 0 && len(ms) > keep {
			ms = ms[:keep]
		}
		// a copy: the caller's hits may share their matches
		ms = append([]Match(nil), ms...)
		for j := range ms {
			ms[j].lean = text >= 0
			n := text
			if n == 0 {
				n = DefaultMatchText
				if j > 0 {
					n = ChosenMatchText
				}
			}
			switch {
			case text == 0 && ms[j].Kind == index.KindOption:
				ms[j].Text, ms[j].Truncated = firstSentence(ms[j].Text, n)
			case text == 0 && ms[j].Kind == index.KindExample && len(ms[j].Text) > n:
				ms[j].Text, ms[j].Truncated = exampleCut(ms[j].Text, hits[i].Invocation(), n), true
			case n > 0 && len(ms[j].Text) > n:
				ms[j].Text, ms[j].Truncated = cutText(ms[j].Text, n), true
			}
		}
		hits[i].Matches = ms
	}
	if fit {
		fitBudget(hits, leanSizes)
	}
	return hits
}

// fitBudget drops the matches past what optrank.Fit keeps of hits' JSON
// within optrank.AnswerBudget (per 5 commands), scores cut to 4 decimals;
// lean: the sizes are of the lean JSON --json prints (Match.MarshalJSON).
func fitBudget(hits []CommandHit, lean bool) {
	sizes, fixed := make([][]int, len(hits)), 0
	for i := range hits {
		h := &hits[i]
		h.Score = math.Round(h.Score*1e4) / 1e4
		for j := range h.Matches {
			m := &h.Matches[j]
			m.Score, m.BM25 = math.Round(m.Score*1e4)/1e4, math.Round(m.BM25*1e4)/1e4
			sized := *m
			sized.lean = lean && m.lean
			b, _ := json.Marshal(sized)
			sizes[i] = append(sizes[i], len(b)+1)
		}
		bare := *h
		bare.Matches = nil
		b, _ := json.Marshal(bare)
		fixed += len(b) + 1
	}
	keep := optrank.Fit(sizes, optrank.AnswerBudget*max(5, len(hits))/5-fixed)
	for i := range hits {
		hits[i].Matches = hits[i].Matches[:keep[i]]
		hits[i].Chosen = min(hits[i].Chosen, keep[i])
	}
}

// firstSentence is an option's text (its heading line, then what it
// does) cut after the first sentence of what it does when that ends
// within n bytes (what the option does, not its details), else as
// cutText cuts it; and whether it was cut.
func firstSentence(s string, n int) (string, bool) {
	body := strings.IndexByte(s, '\n') + 1
	for i := body + minSentence; i < min(n, len(s)-1); i++ {
		if s[i] == '.' && (s[i+1] == ' ' || s[i+1] == '\n') {
			return s[:i+1] + " …", true
		}
	}
	if len(s) > n {
		return cutText(s, n), true
	}
	return s, false
}

// exampleCut is an example's text (its heading line, what it does, its
// command line) within about n bytes that keeps its command line: what
// it does cut shorter when the line would fall past n. The line is the
// first that starts with "$ " or the command (invocation), with the
// lines a trailing backslash continues; without one, cutText.
func exampleCut(s, invocation string, n int) string {
	lines := strings.Split(s, "\n")
	start := -1
	for i, l := range lines[1:] {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "$ ") || t == invocation || strings.HasPrefix(t, invocation+" ") {
			start = i + 1
			break
		}
	}
	if start < 0 || len(strings.Join(lines[:start+1], "\n")) <= n {
		return cutText(s, n)
	}
	end := start + 1
	for end < len(lines) && strings.HasSuffix(strings.TrimSpace(lines[end-1]), "\\") {
		end++
	}
	cmd := strings.Join(lines[start:end], "\n")
	if len(cmd) > n/2 {
		cmd = cutText(cmd, n/2)
	}
	desc := strings.TrimSpace(strings.Join(lines[1:start], "\n"))
	if room := n - len(lines[0]) - len(cmd) - len("\n …\n\n"); room > 0 && len(desc) > room {
		desc = cutText(desc, room)
	} else if room <= 0 {
		desc = "…"
	}
	return lines[0] + "\n" + desc + "\n\n" + cmd
}

// minSentence is how long a first sentence is at least: "e.g. " and
// "i.e. " at its start end none.
const minSentence = 20

// cutText returns s cut to at most n bytes, at the last space if there is
// one in the second half, else at a rune boundary, with " …" added.
func cutText(s string, n int) string {
	cut := n
	if sp := strings.LastIndexAny(s[:n+1], " \n"); sp >= n/2 {
		cut = sp
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " \n") + " …"
}

// Whole is what a default answer (Compact(hits, 0, 0)) shows of each
// command, with the matches' whole texts: the text answer, which prints
// first sentences and examples' command lines a cut text may lack.
func Whole(hits []CommandHit) []CommandHit {
	cut := compact(slices.Clone(hits), 0, 0, false)
	hits = Compact(hits, 0, -1)
	for i := range hits {
		hits[i].Matches, hits[i].Chosen = hits[i].Matches[:len(cut[i].Matches)], cut[i].Chosen
	}
	return hits
}
