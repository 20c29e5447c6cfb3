package main

import (
	"encoding/json"
	"fmt"
	"math"
)

// The latency chart's geometry: a row per measurement, its label on the
// left, a dot (p50) and a line to a tick (p95) on a log axis, and the
// figures on the right. Log, because a warm answer (20 ms) and a one-shot
// one (1.3 s) differ 60-fold: on a linear axis the fast rows vanish.
const (
	plotX    = 380.0 // where the axis starts (latMin)
	plotSpan = 340.0 // latMin to latMax
	valueX   = plotX + plotSpan + 20
	latMin   = 10.0   // ms
	latMax   = 2000.0 // ms
	groupRow = 26
	dataRow  = 20
	latTop   = 60 // the first group heading's top
)

// latColours are a row's dot and line: without the reranker, with it.
var latColours = [2]struct{ name, dot, line string }{
	{"without the reranker", "#1f4e79", "#4a86c5"},
	{"with the reranker", "#b35900", "#e69b4f"},
}

// latTicks label the axis.
var latTicks = []struct {
	ms    float64
	label string
}{{10, "10 ms"}, {20, "20"}, {50, "50"}, {100, "100 ms"}, {200, "200"}, {500, "500"}, {1000, "1 s"}, {2000, "2 s"}}

// latX places ms on the log axis.
func latX(ms float64) float64 {
	return plotX + plotSpan*math.Log10(ms/latMin)/math.Log10(latMax/latMin)
}

// latencyChart draws chart (b): every measured answer time, by group.
func latencyChart(l *Latency) ([]byte, error) {
	rows := 0
	for _, g := range l.Groups {
		rows += len(g.Rows)
	}
	axisY := float64(latTop + len(l.Groups)*groupRow + rows*dataRow + 4)
	height := int(axisY) + 30 + notesHeight(l.Notes) + 10
	s := newSVG(height, l.Title)
	for i, c := range latColours {
		x := plotX + float64(i)*170
		s.circle(x+5, 47, 4.5, c.dot)
		s.text(x+15, 51, 12, "start", "", ink, c.name)
	}
	for _, t := range latTicks {
		s.line(latX(t.ms), latTop+8, latX(t.ms), axisY, grid, 1)
		s.text(latX(t.ms), axisY+14, 11, "middle", "", faint, t.label)
	}
	y := float64(latTop)
	for _, g := range l.Groups {
		s.text(margin, y+groupRow-8, 13, "start", "bold", ink, g.Name)
		y += groupRow
		for _, row := range g.Rows {
			mid := y + dataRow/2
			s.text(margin+16, mid+4, 12, "start", "", ink, row.Label)
			p50, err := millis(row.P50)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: p50: %w", g.Name, row.Label, err)
			}
			c := latColours[0]
			if row.Reranker {
				c = latColours[1]
			}
			figures := "p50 " + string(row.P50) + " ms"
			if row.P95 != "" {
				p95, err := millis(row.P95)
				if err != nil || p95 < p50 {
					return nil, fmt.Errorf("%s, %s: p95 %q: not a time at or above the p50", g.Name, row.Label, row.P95)
				}
				s.line(latX(p50), mid, latX(p95), mid, c.line, 2)
				s.line(latX(p95), mid-5, latX(p95), mid+5, c.line, 2)
				figures += ", p95 " + string(row.P95) + " ms"
			}
			s.circle(latX(p50), mid, 4.5, c.dot)
			s.text(valueX, mid+4, 12, "start", "", ink, figures)
			y += dataRow
		}
	}
	s.notes(axisY+36, l.Notes)
	return s.bytes(), nil
}

// millis reads a time in ms, which must lie on the axis.
func millis(v json.Number) (float64, error) {
	f, err := v.Float64()
	if err != nil || f < latMin || f > latMax {
		return 0, fmt.Errorf("%q is not a time between %g and %g ms (widen latMin, latMax)", v, latMin, latMax)
	}
	return f, nil
}
