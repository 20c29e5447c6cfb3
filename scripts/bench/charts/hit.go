package main

import (
	"encoding/json"
	"fmt"
)

// hitShades are hit@1, hit@5 and hit@10: darker is stricter.
var hitShades = [3]struct{ name, fill string }{
	{"hit@1", "#1f4e79"},
	{"hit@5", "#4a86c5"},
	{"hit@10", "#a9c8ea"},
}

// The hit chart's geometry: two panels side by side, one per test set;
// in each, a mode's three bars on a 0-100 % axis.
const (
	panelWidth = (width - 2*margin) / 2
	modeColumn = 130 // the mode's name, right-aligned
	barSpan    = 280 // 100 %
	barHeight  = 10
	barGap     = 2
	modeGap    = 12
	hitTop     = 100 // the first bar
)

// hitChart draws chart (a): hit@1, @5 and @10 of each mode, per test set.
func hitChart(r *Retrieval) ([]byte, error) {
	if len(r.Sets) != 2 {
		return nil, fmt.Errorf("%d test sets; the chart has a panel for each of two", len(r.Sets))
	}
	modes := len(r.Sets[0].Rows)
	if modes == 0 || len(r.Sets[1].Rows) != modes {
		return nil, fmt.Errorf("the test sets have %d and %d modes; the panels show the same ones", modes, len(r.Sets[1].Rows))
	}
	perMode := 3*barHeight + 2*barGap + modeGap
	axisY := float64(hitTop + modes*perMode - modeGap + 6)
	height := int(axisY) + 30 + notesHeight(r.Notes) + 10
	s := newSVG(height, r.Title)
	for i, h := range hitShades {
		x := float64(margin + i*90)
		s.rect(x, 42, 12, 12, h.fill)
		s.text(x+17, 52, 12, "start", "", ink, h.name)
	}
	for p, set := range r.Sets {
		x0 := float64(margin + p*panelWidth)
		s.text(x0, 84, 13, "start", "bold", ink, set.Name)
		barX := x0 + modeColumn + 5
		for pct := 0; pct <= 100; pct += 25 {
			x := barX + barSpan*float64(pct)/100
			s.line(x, hitTop-4, x, axisY, grid, 1)
			s.text(x, axisY+14, 11, "middle", "", faint, fmt.Sprintf("%d %%", pct))
		}
		for m, row := range set.Rows {
			if row.Mode != r.Sets[0].Rows[m].Mode {
				return nil, fmt.Errorf("%s: mode %d is %q, in %s %q", set.Name, m+1, row.Mode, r.Sets[0].Name, r.Sets[0].Rows[m].Mode)
			}
			y := float64(hitTop + m*perMode)
			s.text(x0+modeColumn, y+float64(3*barHeight+2*barGap)/2+4, 12, "end", "", ink, row.Mode)
			for k, v := range []json.Number{row.Hit1, row.Hit5, row.Hit10} {
				pct, err := percent(v)
				if err != nil {
					return nil, fmt.Errorf("%s, %s, %s: %w", set.Name, row.Mode, hitShades[k].name, err)
				}
				by := y + float64(k*(barHeight+barGap))
				s.rect(barX, by, barSpan*pct/100, barHeight, hitShades[k].fill)
				s.text(barX+barSpan*pct/100+4, by+barHeight-1.5, 10, "start", "", ink, string(v))
			}
		}
	}
	s.notes(axisY+36, r.Notes)
	return s.bytes(), nil
}

// percent reads a hit@k figure, which must lie on the 0-100 axis.
func percent(v json.Number) (float64, error) {
	f, err := v.Float64()
	if err != nil || f < 0 || f > 100 {
		return 0, fmt.Errorf("%q is not a percentage", v)
	}
	return f, nil
}
