// Package report is explainbench's report: report.json's schema, the
// statistics it gives (timing quantiles, the Wilson interval of the
// hand check, the exact McNemar test of a paired run) and summary.md.
package report

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
)

// Report is report.json.
type Report struct {
	Corpus        string       `json:"corpus"`
	CorpusSHA256  string       `json:"corpus_sha256"`
	Collection    string       `json:"collection"`
	IndexCommands string       `json:"index_commands,omitempty"`
	IndexRecords  int          `json:"index_records"`
	Seed          string       `json:"seed"`
	Started       string       `json:"started"`
	Finished      string       `json:"finished"`
	Parts         []Part       `json:"parts"`
	Timing        Timing       `json:"timing_warm"`
	SampleLines   int          `json:"sample_lines"`
	Handcheck     []*Handcheck `json:"handcheck,omitempty"`
	Paired        []Paired     `json:"paired,omitempty"`
}

type Count struct {
	Key      string   `json:"key"`
	N        int      `json:"n"`
	Examples []string `json:"examples,omitempty"`
}

type Part struct {
	Part        string `json:"part"`
	Lines       int    `json:"lines"`
	Parsed      int    `json:"parsed"`
	Unparseable int    `json:"unparseable"`
	// Command occurrences by verdict; Documented: known with option records.
	Commands      map[string]int `json:"commands"`
	Documented    int            `json:"commands_documented"`
	NotInstalled  []Count        `json:"not_installed_top"`
	DistinctKnown int            `json:"distinct_known"`
	Options       int            `json:"options"`
	Matched       int            `json:"matched"`
	MatchedProse  int            `json:"matched_prose"`
	Coverage      float64        `json:"coverage"`
	Misses        []Count        `json:"misses_by_cause"`
	// Flagged lines: any unknown option (share of all lines of the part).
	Flagged      int     `json:"flagged_lines"`
	FlaggedShare float64 `json:"flagged_share"`
	// Unknown options by cause, and the most frequent (command, option).
	UnknownByCause []Count    `json:"unknown_by_cause"`
	UnknownTop     []Count    `json:"unknown_top"`
	Detection      *Detection `json:"detection,omitempty"`
}

type Detection struct {
	Mutations   int     `json:"mutations"`
	Flagged     int     `json:"flagged"`
	Rate        float64 `json:"rate"`
	LineFlagged int     `json:"line_flagged"`
	ByKind      []Count `json:"by_kind"`
	FlaggedKind []Count `json:"flagged_by_kind"`
	// Missed mutations by the verdict and note of the new word.
	Missed []Count `json:"missed"`
}

// Handcheck is the sample's verdicts, read from the hand-check file.
type Handcheck struct {
	File        string   `json:"file"`
	Part        string   `json:"part"`
	Sampled     int      `json:"sampled"`
	Checked     int      `json:"checked"`
	FalseAlarms int      `json:"false_alarm_lines"`
	TrueCatches int      `json:"true_catch_lines"`
	Unchecked   []int    `json:"unchecked_lines,omitempty"`
	FalseList   []string `json:"false_alarms,omitempty"`
	// ByClass counts the checked options by what the line got wrong.
	ByClass []Count `json:"by_class,omitempty"`
	// Wilson 95 % interval of the false-alarm share of flagged lines.
	Share, Low, High float64
}

func Wilson(k, n int) (float64, float64) {
	z := 1.959964
	p := float64(k) / float64(n)
	den := 1 + z*z/float64(n)
	c := (p + z*z/(2*float64(n))) / den
	h := z * math.Sqrt(p*(1-p)/float64(n)+z*z/(4*float64(n)*float64(n))) / den
	return math.Max(0, c-h), math.Min(1, c+h)
}

// Paired compare two runs line by line (the same corpus).
type Paired struct {
	Part  string `json:"part"`
	Lines int    `json:"lines"`
	// Flagged before/after; Unflagged: flagged before, not after;
	// NewlyFlagged the reverse; P: exact two-sided McNemar.
	FlaggedBefore int     `json:"flagged_before"`
	FlaggedAfter  int     `json:"flagged_after"`
	Unflagged     int     `json:"unflagged"`
	NewlyFlagged  int     `json:"newly_flagged"`
	P             float64 `json:"p_flagged"`
	// Lines all of whose options are matched, before/after, and the
	// discordant pairs of that.
	FullBefore, FullAfter int
	FullGained, FullLost  int
	PFull                 float64
	CoverageBefore        float64
	CoverageAfter         float64
	// The baseline's mutations judged by both: flagged before/after.
	Mutations, DetBefore, DetAfter int
	DetGained, DetLost             int
	PDet                           float64
}

// McNemar is the exact two-sided McNemar p: the binomial test of b
// against b+c at one half.
func McNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// P(X <= k) for X ~ Bin(n, 1/2), in logs
	sum := 0.0
	for i := 0; i <= k; i++ {
		lg := lgammaInt(n+1) - lgammaInt(i+1) - lgammaInt(n-i+1) - float64(n)*math.Ln2
		sum += math.Exp(lg)
	}
	return math.Min(1, 2*sum)
}

func lgammaInt(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// Timing are per-line milliseconds.
type Timing struct {
	Lines int     `json:"lines"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func TimingOf(ms []float64) Timing {
	if len(ms) == 0 {
		return Timing{}
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	q := func(p float64) float64 { return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)] }
	return Timing{Lines: len(s), Mean: sum / float64(len(s)), P50: q(0.5), P95: q(0.95), P99: q(0.99), Max: s[len(s)-1]}
}

// SortCounts orders counts by n, then key.
func SortCounts(cs []Count) {
	sort.Slice(cs, func(i, k int) bool {
		if cs[i].N != cs[k].N {
			return cs[i].N > cs[k].N
		}
		return cs[i].Key < cs[k].Key
	})
}

func Pct(x float64) string { return fmt.Sprintf("%.2f %%", 100*x) }

// Summary is summary.md: the figures, readable.
func Summary(rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# cmdai explain on %s\n\n", filepath.Base(rep.Corpus))
	fmt.Fprintf(&b, "corpus sha256 %s; collection %s (%s commands, %d records); seed %s\n\n", rep.CorpusSHA256, rep.Collection, rep.IndexCommands, rep.IndexRecords, rep.Seed)
	b.WriteString("| | all | train | test |\n|---|---|---|---|\n")
	row := func(name string, f func(p Part) string) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, p := range rep.Parts {
			fmt.Fprintf(&b, " %s |", f(p))
		}
		b.WriteString("\n")
	}
	row("lines", func(p Part) string { return fmt.Sprint(p.Lines) })
	row("unparseable", func(p Part) string { return fmt.Sprint(p.Unparseable) })
	row("commands: in the index", func(p Part) string { return fmt.Sprint(p.Commands["known"]) })
	row("commands: with option records", func(p Part) string { return fmt.Sprint(p.Documented) })
	row("commands: not installed", func(p Part) string { return fmt.Sprint(p.Commands["not installed"]) })
	row("commands: undocumented (builtin, on PATH without page, ...)", func(p Part) string { return fmt.Sprint(p.Commands["undocumented"]) })
	row("distinct commands in the index", func(p Part) string { return fmt.Sprint(p.DistinctKnown) })
	row("option units of documented commands", func(p Part) string { return fmt.Sprint(p.Options) })
	row("matched to an option record", func(p Part) string { return fmt.Sprint(p.Matched) })
	row("of which by the page's prose (no option entry of its own)", func(p Part) string { return fmt.Sprint(p.MatchedProse) })
	row("**coverage** (target >= 95 %)", func(p Part) string { return "**" + Pct(p.Coverage) + "**" })
	row("lines flagged `unknown option`", func(p Part) string {
		return fmt.Sprintf("%d (%s)", p.Flagged, Pct(p.FlaggedShare))
	})
	row("**detection** (target >= 95 %)", func(p Part) string {
		if p.Detection == nil {
			return ""
		}
		return fmt.Sprintf("**%d / %d = %s**", p.Detection.Flagged, p.Detection.Mutations, Pct(p.Detection.Rate))
	})
	fmt.Fprintf(&b, "\nwarm time per line (%d lines, cached lookups): mean %.3f ms, p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.2f ms\n",
		rep.Timing.Lines, rep.Timing.Mean, rep.Timing.P50, rep.Timing.P95, rep.Timing.P99, rep.Timing.Max)
	for _, hc := range rep.Handcheck {
		var p Part
		for _, x := range rep.Parts {
			if x.Part == hc.Part {
				p = x
			}
		}
		fmt.Fprintf(&b, "\nhand check, %s (%s): %d of %d flagged lines sampled, %d checked: %d false alarms, %d true catches (false-alarm share of flagged lines %s, 95 %% CI %s to %s)",
			hc.Part, hc.File, hc.Sampled, p.Flagged, hc.Checked, hc.FalseAlarms, hc.TrueCatches, Pct(hc.Share), Pct(hc.Low), Pct(hc.High))
		fmt.Fprintf(&b, "; false alarms as a share of all %s lines: %s x %s = **%s** (upper 95 %%: %s)\n",
			hc.Part, Pct(p.FlaggedShare), Pct(hc.Share), Pct(p.FlaggedShare*hc.Share), Pct(p.FlaggedShare*hc.High))
		if len(hc.Unchecked) > 0 {
			fmt.Fprintf(&b, "unchecked sampled lines: %v\n", hc.Unchecked)
		}
		for _, c := range hc.ByClass {
			fmt.Fprintf(&b, "- %d %s (e.g. %s)\n", c.N, c.Key, strings.Join(c.Examples, "; "))
		}
	}
	for _, p := range rep.Parts {
		fmt.Fprintf(&b, "\n## %s\n\nmisses by cause (%d):\n\n", p.Part, p.Options-p.Matched)
		for _, c := range p.Misses {
			fmt.Fprintf(&b, "- %d %s (e.g. %s)\n", c.N, c.Key, strings.Join(c.Examples, "; "))
		}
		fmt.Fprintf(&b, "\nunknown options by cause:\n\n")
		for _, c := range p.UnknownByCause {
			fmt.Fprintf(&b, "- %d %s (e.g. %s)\n", c.N, c.Key, strings.Join(c.Examples, "; "))
		}
		if p.Part == "all" {
			b.WriteString("\nmost flagged (command option: times):\n\n")
			for _, c := range p.UnknownTop {
				fmt.Fprintf(&b, "- %s: %d (%s)\n", c.Key, c.N, strings.Join(c.Examples, "; "))
			}
			b.WriteString("\nnot installed, most used: ")
			for _, c := range p.NotInstalled {
				fmt.Fprintf(&b, "%s %d, ", c.Key, c.N)
			}
			b.WriteString("\n")
		}
		if d := p.Detection; d != nil {
			fmt.Fprintf(&b, "\ndetection: %d/%d flagged (line flagged: %d); by kind:", d.Flagged, d.Mutations, d.LineFlagged)
			for _, k := range d.ByKind {
				f := 0
				for _, x := range d.FlaggedKind {
					if x.Key == k.Key {
						f = x.N
					}
				}
				fmt.Fprintf(&b, " %s %d/%d;", k.Key, f, k.N)
			}
			b.WriteString("\n")
			for _, c := range d.Missed {
				fmt.Fprintf(&b, "- missed %d: %s (e.g. %s)\n", c.N, c.Key, strings.Join(c.Examples, "; "))
			}
		}
	}
	if len(rep.Paired) > 0 {
		b.WriteString("\n## paired with the baseline run\n\n| part | lines | flagged before -> after | unflagged | newly flagged | McNemar p | fully matched lines before -> after (gained/lost, p) | coverage before -> after | baseline's mutations flagged before -> after (gained/lost, p) |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, p := range rep.Paired {
			fmt.Fprintf(&b, "| %s | %d | %d -> %d | %d | %d | %.3g | %d -> %d (%d/%d, %.3g) | %s -> %s | %d -> %d of %d (%d/%d, %.3g) |\n", p.Part, p.Lines, p.FlaggedBefore, p.FlaggedAfter,
				p.Unflagged, p.NewlyFlagged, p.P, p.FullBefore, p.FullAfter, p.FullGained, p.FullLost, p.PFull, Pct(p.CoverageBefore), Pct(p.CoverageAfter),
				p.DetBefore, p.DetAfter, p.Mutations, p.DetGained, p.DetLost, p.PDet)
		}
	}
	return b.String()
}
