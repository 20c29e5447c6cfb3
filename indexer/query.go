package indexer

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
)

// Match is one chunk that answered a request.
type Match struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Section string  `json:"section"`
	Option  string  `json:"option,omitempty"`
	Score   float64 `json:"score"`
	Text    string  `json:"text"`
}

// CommandHit is one command with the chunks of it that matched.
type CommandHit struct {
	Command       string  `json:"command"`
	Score         float64 `json:"score"`
	Description   string  `json:"description,omitempty"`
	Version       string  `json:"version,omitempty"`
	ManSection    string  `json:"man_section,omitempty"`
	InstalledPath string  `json:"installed_path,omitempty"`
	Aliases       string  `json:"aliases,omitempty"`
	Matches       []Match `json:"matches"`
}

// chunksPerCommand is how many chunks are fetched per command asked for:
// a command's options and sections compete with each other, so the
// nearest chunks name fewer commands than they are.
const chunksPerCommand = 10

// Query embeds the request and returns the k best commands, best first,
// each with its matching chunks (best first). A command scores its best
// chunk's cosine similarity.
func Query(ctx context.Context, coll *chroma.Collection, e embed.Embedder, request string, k int) ([]CommandHit, error) {
	request = strings.TrimSpace(request)
	if request == "" {
		return nil, fmt.Errorf("empty request: say what you want to do, e.g. \"find files modified today\"")
	}
	if k <= 0 {
		k = 5
	}
	vecs, err := e.Embed(ctx, []string{request})
	if err != nil {
		return nil, err
	}
	hits, err := coll.Query(ctx, vecs[0], max(50, k*chunksPerCommand))
	if err != nil {
		return nil, err
	}
	return Group(hits, k), nil
}

// Group aggregates chunk hits per command.
func Group(hits []chroma.Hit, k int) []CommandHit {
	byCmd := map[string]*CommandHit{}
	var order []*CommandHit
	for _, h := range hits {
		cmd, _ := h.Metadata["command"].(string)
		if cmd == "" {
			continue
		}
		c := byCmd[cmd]
		if c == nil {
			c = &CommandHit{Command: cmd}
			c.Description, _ = h.Metadata["description"].(string)
			c.Version, _ = h.Metadata["version"].(string)
			c.ManSection, _ = h.Metadata["man_section"].(string)
			c.InstalledPath, _ = h.Metadata["installed_path"].(string)
			c.Aliases, _ = h.Metadata["aliases"].(string)
			byCmd[cmd] = c
			order = append(order, c)
		}
		m := Match{ID: h.ID, Score: 1 - h.Distance, Text: h.Document}
		m.Kind, _ = h.Metadata["kind"].(string)
		m.Section, _ = h.Metadata["section"].(string)
		m.Option, _ = h.Metadata["option"].(string)
		c.Matches = append(c.Matches, m)
		if m.Score > c.Score {
			c.Score = m.Score
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Score > order[j].Score })
	if len(order) > k {
		order = order[:k]
	}
	out := make([]CommandHit, len(order))
	for i, c := range order {
		sort.SliceStable(c.Matches, func(a, b int) bool { return c.Matches[a].Score > c.Matches[b].Score })
		out[i] = *c
	}
	return out
}
