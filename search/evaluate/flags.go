package evaluate

import (
	"context"

	"github.com/cmdai/cmdai/search/optrank"
)

// FlagTop is how many commands of an answer the flag figures read: what
// `cmdai search -k 5` shows.
const FlagTop = 5

// Needed is one option record a request needs: its id and its
// spellings (an example that uses one of them shows it).
type Needed struct {
	ID        string
	Spellings []string
}

// NeedFunc gives the option records of command (as indexed) that a
// request needs, from its Options or its Line (none when the index holds
// none of them), and whether it needs any option at all (a Line may use
// none: "mkdir temp").
type NeedFunc func(ctx context.Context, q EvalQuery, command string) (need []Needed, any bool, err error)

// FlagMetrics are the flag figures of the requests that carry the
// options they need.
type FlagMetrics struct {
	// Queries carry options; Ceiling is the share whose needed options
	// the index holds at least one of.
	Queries int     `json:"queries"`
	Ceiling float64 `json:"ceiling"`
	// At1: the command first and one of its needed options shown in its
	// block. GivenCmd: of those whose command is within the first
	// FlagTop (GivenQueries), the share whose block shows one.
	At1          float64 `json:"flag_at_1"`
	GivenCmd     float64 `json:"flag_given_cmd"`
	GivenQueries int     `json:"given_queries"`
}

// flagShown says the block of command want, within the first FlagTop of
// got, shows one of the needed records: the record itself, or an
// example using one of its spellings.
func flagShown(got []Ranked, want string, need []Needed) bool {
	if len(need) == 0 {
		return false
	}
	ids := map[string]bool{}
	for _, n := range need {
		ids[n.ID] = true
	}
	for _, c := range got[:min(len(got), FlagTop)] {
		if c.Command != want && c.Parent != want {
			continue
		}
		for _, s := range c.Shown {
			if ids[s.ID] {
				return true
			}
			if s.Kind == "example" {
				for _, n := range need {
					if optrank.Uses(s.Text, n.Spellings, nil) {
						return true
					}
				}
			}
		}
		return false
	}
	return false
}

// flagMetricsOf sums up the outcomes that carry options.
func flagMetricsOf(os []Outcome) *FlagMetrics {
	m := &FlagMetrics{}
	held, at1, given := 0, 0, 0
	for _, o := range os {
		if o.Need < 0 {
			continue
		}
		m.Queries++
		if o.Need > 0 {
			held++
		}
		if o.Rank == 1 && o.Flag {
			at1++
		}
		if o.Rank >= 1 && o.Rank <= FlagTop {
			m.GivenQueries++
			if o.Flag {
				given++
			}
		}
	}
	if m.Queries == 0 {
		return nil
	}
	m.Ceiling = float64(held) / float64(m.Queries)
	m.At1 = float64(at1) / float64(m.Queries)
	if m.GivenQueries > 0 {
		m.GivenCmd = float64(given) / float64(m.GivenQueries)
	}
	return m
}

// Bytes are the sizes of a set of answers.
type Bytes struct {
	P50     int     `json:"p50"`
	P95     int     `json:"p95"`
	Under4K float64 `json:"under_4k"`
}
