package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/scripts/bench/explainbench/mutate"
	"github.com/cmdai/cmdai/scripts/bench/explainbench/report"
)

func (b *bench) summarise(part string, rs []lineResult) report.Part {
	ps := report.Part{Part: part, Commands: map[string]int{}}
	notInst := map[string]int{}
	known := map[string]bool{}
	misses := map[string]*report.Count{}
	unk := map[string]*report.Count{}
	top := map[string]*report.Count{}
	add := func(m map[string]*report.Count, key, ex string) {
		c := m[key]
		if c == nil {
			c = &report.Count{Key: key}
			m[key] = c
		}
		c.N++
		if len(c.Examples) < 8 && ex != "" && !contains(c.Examples, ex) {
			c.Examples = append(c.Examples, ex)
		}
	}
	for _, r := range rs {
		if part != "all" && r.Part != part {
			continue
		}
		ps.Lines++
		if !r.Parsed {
			ps.Unparseable++
			continue
		}
		ps.Parsed++
		for _, c := range r.Commands {
			ps.Commands[c.Verdict]++
			if c.Documented {
				ps.Documented++
			}
			if c.Verdict == "known" {
				known[c.Name] = true
			}
			if c.Verdict == "not installed" {
				notInst[c.Name]++
			}
		}
		ps.Options += r.Options
		ps.Matched += r.Matched
		ps.MatchedProse += r.MatchedProse
		for _, m := range r.Misses {
			add(misses, m.Cause, m.Command+" "+m.Flag)
		}
		if r.Flagged {
			ps.Flagged++
		}
		for _, m := range r.Unknown {
			add(unk, m.Cause, m.Command+" "+m.Flag)
			add(top, m.Command+" "+m.Flag, m.Cause)
		}
	}
	ps.DistinctKnown = len(known)
	if ps.Options > 0 {
		ps.Coverage = float64(ps.Matched) / float64(ps.Options)
	}
	if ps.Lines > 0 {
		ps.FlaggedShare = float64(ps.Flagged) / float64(ps.Lines)
	}
	ps.Misses = sorted(misses, 0)
	ps.UnknownByCause = sorted(unk, 0)
	ps.UnknownTop = sorted(top, 40)
	var ni []report.Count
	for k, v := range notInst {
		ni = append(ni, report.Count{Key: k, N: v})
	}
	report.SortCounts(ni)
	if len(ni) > 25 {
		ni = ni[:25]
	}
	ps.NotInstalled = ni
	return ps
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func sorted(m map[string]*report.Count, limit int) []report.Count {
	out := make([]report.Count, 0, len(m))
	for _, c := range m {
		out = append(out, *c)
	}
	report.SortCounts(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func detection(part string, ms []mutation) *report.Detection {
	d := &report.Detection{}
	kinds, fk, missed := map[string]*report.Count{}, map[string]*report.Count{}, map[string]*report.Count{}
	for _, m := range ms {
		if part != "all" && m.Part != part {
			continue
		}
		d.Mutations++
		inc(kinds, m.Kind, "")
		if m.LineFlagged {
			d.LineFlagged++
		}
		if m.Flagged {
			d.Flagged++
			inc(fk, m.Kind, "")
		} else {
			inc(missed, m.Verdict+": "+shortNote(m.Note), m.Command+" "+m.From+" -> "+m.To)
		}
	}
	if d.Mutations > 0 {
		d.Rate = float64(d.Flagged) / float64(d.Mutations)
	}
	d.ByKind, d.FlaggedKind, d.Missed = sorted(kinds, 0), sorted(fk, 0), sorted(missed, 0)
	return d
}

func inc(m map[string]*report.Count, key, ex string) {
	c := m[key]
	if c == nil {
		c = &report.Count{Key: key}
		m[key] = c
	}
	c.N++
	if ex != "" && len(c.Examples) < 8 {
		c.Examples = append(c.Examples, ex)
	}
}

func shortNote(n string) string {
	if len(n) > 80 {
		return n[:80]
	}
	return n
}

// flaggedSample is n flagged lines (both halves), in an order the seed
// decides (a line's rank does not depend on the others: a later run that
// flags fewer lines keeps the rest of its sample). Fewer than n flagged:
// every one.
func flaggedSample(seed string, rs []lineResult, n int) []lineResult {
	var fl []lineResult
	for _, r := range rs {
		if r.Flagged {
			fl = append(fl, r)
		}
	}
	sort.SliceStable(fl, func(i, k int) bool {
		return mutate.Hash64(fmt.Sprint(seed, ":sample:", fl[i].N)) < mutate.Hash64(fmt.Sprint(seed, ":sample:", fl[k].N))
	})
	if len(fl) > n {
		fl = fl[:n]
	}
	return fl
}

// readHandcheck reads TSV rows "n command option verdict reason"
// (verdict "false alarm" or "true catch"; # comments) and judges each
// sampled line: a false alarm when any of its flagged options is one.
func readHandcheck(path, part string, sample []lineResult) (*report.Handcheck, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type row struct{ cmd, opt, verdict, reason, class string }
	rows := map[int][]row{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		c := strings.Split(l, "\t")
		if len(c) < 5 || c[0] == "n" {
			continue
		}
		var n int
		if _, err := fmt.Sscan(c[0], &n); err != nil {
			continue
		}
		x := row{cmd: c[1], opt: c[2], verdict: strings.TrimSpace(c[3]), reason: c[4]}
		if len(c) > 5 {
			x.class = c[5]
		}
		rows[n] = append(rows[n], x)
	}
	hc := &report.Handcheck{File: path, Part: part}
	classes := map[string]*report.Count{}
	for _, r := range sample {
		if part != "all" && r.Part != part {
			continue
		}
		hc.Sampled++
		// the line's verdicts: a row for each option it flags now (one
		// the file does not judge leaves the line unchecked)
		var rs []row
		missing := false
		for i, u := range r.Unknown {
			found := false
			for _, x := range rows[r.N] {
				if x.cmd == u.Command && x.opt == u.Flag {
					if !seenBefore(r.Unknown[:i], u) {
						rs = append(rs, x)
					}
					found = true
					break
				}
			}
			missing = missing || !found
		}
		if missing || len(rs) == 0 {
			hc.Unchecked = append(hc.Unchecked, r.N)
			continue
		}
		hc.Checked++
		fa := false
		for _, x := range rs {
			if x.class != "" {
				inc(classes, x.class, x.cmd+" "+x.opt)
			}
			if x.verdict == "false alarm" {
				fa = true
				hc.FalseList = append(hc.FalseList, fmt.Sprintf("%d %s %s: %s", r.N, x.cmd, x.opt, x.reason))
			}
		}
		if fa {
			hc.FalseAlarms++
		} else {
			hc.TrueCatches++
		}
	}
	hc.ByClass = sorted(classes, 0)
	if hc.Checked > 0 {
		hc.Share = float64(hc.FalseAlarms) / float64(hc.Checked)
		hc.Low, hc.High = report.Wilson(hc.FalseAlarms, hc.Checked)
	}
	return hc, sc.Err()
}

func readBaseline(path string) (map[int]lineResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[int]lineResult{}
	dec := json.NewDecoder(f)
	for dec.More() {
		var r lineResult
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[r.N] = r
	}
	return out, nil
}

func paired(part string, base map[int]lineResult, rs []lineResult) report.Paired {
	ps := report.Paired{Part: part}
	var ob, mb, oa, ma int
	for _, r := range rs {
		if part != "all" && r.Part != part {
			continue
		}
		b, ok := base[r.N]
		if !ok || b.Line != r.Line {
			continue
		}
		ps.Lines++
		if b.Flagged {
			ps.FlaggedBefore++
		}
		if r.Flagged {
			ps.FlaggedAfter++
		}
		if b.Flagged && !r.Flagged {
			ps.Unflagged++
		}
		if !b.Flagged && r.Flagged {
			ps.NewlyFlagged++
		}
		fb, fa := b.Options > 0 && b.Matched == b.Options, r.Options > 0 && r.Matched == r.Options
		if fb {
			ps.FullBefore++
		}
		if fa {
			ps.FullAfter++
		}
		if fa && !fb {
			ps.FullGained++
		}
		if fb && !fa {
			ps.FullLost++
		}
		ob, mb, oa, ma = ob+b.Options, mb+b.Matched, oa+r.Options, ma+r.Matched
	}
	ps.P = report.McNemar(ps.Unflagged, ps.NewlyFlagged)
	ps.PFull = report.McNemar(ps.FullGained, ps.FullLost)
	if ob > 0 {
		ps.CoverageBefore = float64(mb) / float64(ob)
	}
	if oa > 0 {
		ps.CoverageAfter = float64(ma) / float64(oa)
	}
	return ps
}

func write(dir string, rep *report.Report, rs []lineResult, ms []mutation, sample []lineResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	if err := writeJSONL(filepath.Join(dir, "lines.jsonl"), len(rs), func(i int) any { return rs[i] }); err != nil {
		return err
	}
	if err := writeJSONL(filepath.Join(dir, "mutations.jsonl"), len(ms), func(i int) any { return ms[i] }); err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString("n\tcommand\toption\tverdict\treason\tnote\tline\n")
	for _, r := range sample {
		for _, u := range r.Unknown {
			fmt.Fprintf(&sb, "%d\t%s\t%s\t\t\t%s\t%s\n", r.N, u.Command, u.Flag, u.Cause, r.Line)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "flagged-sample.tsv"), []byte(sb.String()), 0o644); err != nil {
		return err
	}
	s := report.Summary(rep)
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(s), 0o644); err != nil {
		return err
	}
	fmt.Print(s)
	return nil
}

func writeJSONL(path string, n int, at func(int) any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := 0; i < n; i++ {
		if err := enc.Encode(at(i)); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func seenBefore(ms []miss, u miss) bool {
	for _, m := range ms {
		if m.Command == u.Command && m.Flag == u.Flag {
			return true
		}
	}
	return false
}

func readMutations(path string) ([]mutation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mutation
	dec := json.NewDecoder(f)
	for dec.More() {
		var m mutation
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// pairedDetection compares the baseline's mutations as it judged them
// (before) and as this run does (again).
func pairedDetection(p *report.Paired, before, again []mutation) {
	for i, b := range before {
		if p.Part != "all" && b.Part != p.Part {
			continue
		}
		a := again[i]
		p.Mutations++
		if b.Flagged {
			p.DetBefore++
		}
		if a.Flagged {
			p.DetAfter++
		}
		if a.Flagged && !b.Flagged {
			p.DetGained++
		}
		if b.Flagged && !a.Flagged {
			p.DetLost++
		}
	}
	p.PDet = report.McNemar(p.DetGained, p.DetLost)
}
