package explain

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
)

// TestCoverageStats: over EXPLAIN_LINES, how option words of indexed
// commands fare (a tuning aid; silent without the variable).
func TestCoverageStats(t *testing.T) {
	file := os.Getenv("EXPLAIN_STATS")
	if file == "" {
		t.Skip("set EXPLAIN_STATS to a file of command lines")
	}
	l := realLookup(t)
	data, _ := os.ReadFile(file)
	counts := map[string]int{}
	undoc := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		r, err := Explain(context.Background(), line, l, Options{})
		if err != nil {
			continue
		}
		for _, c := range r.Commands {
			if c.Verdict != Known {
				continue
			}
			for _, w := range c.Words {
				if !strings.HasPrefix(w.Text, "-") || w.Of != "" || w.Verdict == Operand {
					continue
				}
				k := string(w.Verdict)
				if w.Verdict == Known && strings.Contains(w.Note, "page's text") {
					k = "known (prose)"
				}
				if w.Verdict == Known && w.OptionID != "" && !strings.Contains(w.OptionID, "#OPTIONS") && !strings.Contains(w.Note, "page's text") {
					k = "known (other)"
				}
				counts[k]++
				if w.Verdict == Undocumented {
					undoc[c.Name+" "+w.Text+" | "+w.Note]++
				}
			}
		}
	}
	t.Logf("%v", counts)
	var keys []string
	for k := range undoc {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return undoc[keys[i]] > undoc[keys[j]] })
	for _, k := range keys[:min(len(keys), 40)] {
		t.Logf("%d %s", undoc[k], k)
	}
}

// TestDetectionStats: change one documented option of each line to a
// letter its page never names, and count the lines flagged.
func TestDetectionStats(t *testing.T) {
	file := os.Getenv("EXPLAIN_STATS")
	if file == "" {
		t.Skip("set EXPLAIN_STATS to a file of command lines")
	}
	l := realLookup(t)
	data, _ := os.ReadFile(file)
	tried, caught := 0, 0
	var missed []string
	for _, line := range strings.Split(string(data), "\n") {
		r, err := Explain(context.Background(), line, l, Options{})
		if err != nil || r.UnknownCount > 0 {
			continue
		}
	outer:
		for _, c := range r.Commands {
			if c.Verdict != Known || len(c.Via) > 0 {
				continue
			}
			doc, err := l(context.Background(), c.Name)
			if err != nil {
				continue
			}
			tb := tableOf(doc)
			for _, w := range c.Words {
				if w.Verdict != Known || len(w.Text) != 2 || w.Text[0] != '-' || line[w.Start:w.End] != w.Text {
					continue
				}
				for _, ch := range "qjkQWYKJgGzZ" {
					if tb.short[byte(ch)] == nil && !tb.mentioned["-"+string(ch)] {
						m := line[:w.Start] + "-" + string(ch) + line[w.End:]
						tried++
						r2, err := Explain(context.Background(), m, l, Options{})
						if err == nil && r2.UnknownCount > 0 {
							caught++
						} else {
							missed = append(missed, m)
						}
						break outer
					}
				}
			}
		}
	}
	t.Logf("tried %d caught %d", tried, caught)
	for _, m := range missed[:min(len(missed), 30)] {
		t.Logf("missed: %s", m)
	}
}

// TestDebugTable prints the option table Explain builds from each page
// named in EXPLAIN_TABLE (comma-separated): a tuning aid.
func TestDebugTable(t *testing.T) {
	names := os.Getenv("EXPLAIN_TABLE")
	if names == "" {
		t.Skip()
	}
	l := realLookup(t)
	for _, n := range strings.Split(names, ",") {
		doc, err := l(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range doc.Records {
			if r.Kind == "option" {
				t.Logf("%s OPT %q | %q", n, r.Option, strings.SplitN(r.Text, "\n", 2)[0])
			}
		}
		tb := buildTable(doc)
		for c, s := range tb.short {
			t.Logf("short %c arg=%d weak=%v", c, s.arg, s.weak)
		}
		for k, s := range tb.long {
			t.Logf("long %s arg=%d weak=%v", k, s.arg, s.weak)
		}
		for k, s := range tb.single {
			t.Logf("single %s arg=%d n=%d weak=%v", k, s.arg, s.nargs, s.weak)
		}
		t.Logf("synopsis %q", tb.synopsis)
	}
}
