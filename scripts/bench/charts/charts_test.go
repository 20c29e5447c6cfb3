package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// committed is the repository's figures.json, from this package's
// directory.
var committed = filepath.Join("..", "..", "..", "docs", "benchmarks", "figures.json")

func loadCommitted(t *testing.T) (*Figures, []chart) {
	t.Helper()
	f, err := load(committed)
	if err != nil {
		t.Fatal(err)
	}
	charts, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, charts
}

// TestCommittedChartsMatchFigures: the committed SVGs are what the
// generator draws from the committed figures, byte for byte, so a figure
// changed without its chart (or a chart edited by hand) fails here.
func TestCommittedChartsMatchFigures(t *testing.T) {
	_, charts := loadCommitted(t)
	for _, c := range charts {
		got, err := os.ReadFile(filepath.Join(filepath.Dir(committed), c.name))
		if err != nil {
			t.Fatalf("%v (run go run ./scripts/bench/charts from the repository's root)", err)
		}
		if !bytes.Equal(got, c.svg) {
			t.Errorf("docs/benchmarks/%s is not what docs/benchmarks/figures.json draws: run go run ./scripts/bench/charts from the repository's root", c.name)
		}
	}
	_, again := loadCommitted(t)
	for i := range charts {
		if !bytes.Equal(charts[i].svg, again[i].svg) {
			t.Errorf("%s: two runs drew different bytes", charts[i].name)
		}
	}
}

// figureList is every figure of f as written in the JSON, and says
// whether each has its source.
func figureList(t *testing.T, f *Figures) (hit, lat []string) {
	t.Helper()
	for _, set := range f.Retrieval.Sets {
		for _, r := range set.Rows {
			if r.Source == "" {
				t.Errorf("%s, %s: no source", set.Name, r.Mode)
			}
			hit = append(hit, string(r.Hit1), string(r.Hit5), string(r.Hit10))
		}
	}
	for _, g := range f.Latency.Groups {
		for _, r := range g.Rows {
			if r.Source == "" {
				t.Errorf("%s, %s: no source", g.Name, r.Label)
			}
			lat = append(lat, string(r.P50))
			if r.P95 != "" {
				lat = append(lat, string(r.P95))
			}
		}
	}
	return hit, lat
}

// labels is the words of every text element of an SVG, counted, after
// checking that it is plain SVG: well-formed, with nothing a viewer
// would fetch or run.
func labels(t *testing.T, name string, svg []byte) map[string]int {
	t.Helper()
	for _, banned := range []string{"<script", "href", "@import", "@font-face", "url(", "<foreignObject", "<style", "<image"} {
		if bytes.Contains(svg, []byte(banned)) {
			t.Errorf("%s holds %q: GitHub shows plain SVG only", name, banned)
		}
	}
	words := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	inText, root := false, true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root && (tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg") {
				t.Errorf("%s: the root is %v, not an svg element in the SVG namespace", name, tok.Name)
			}
			root = false
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				for _, w := range strings.Fields(strings.NewReplacer(",", " ").Replace(string(tok))) {
					words[w]++
				}
			}
		}
	}
	return words
}

// TestEveryFigureIsALabel: each figure of the JSON is printed in its
// chart, as written there, once per time it is given (two modes with
// the same figure need two labels).
func TestEveryFigureIsALabel(t *testing.T) {
	f, charts := loadCommitted(t)
	hit, lat := figureList(t, f)
	if len(hit) != 30 || len(lat) != 19 {
		t.Errorf("%d hit@k figures and %d times; want 30 (2 sets, 5 modes, 3 k) and 19", len(hit), len(lat))
	}
	for i, want := range [][]string{hit, lat} {
		words := labels(t, charts[i].name, charts[i].svg)
		for _, fig := range want {
			if words[fig] == 0 {
				t.Errorf("%s: figure %s is not a label", charts[i].name, fig)
			}
			words[fig]--
		}
	}
}

// TestChangedFigureChangesChart: the check above can fail: a figure
// changed in the JSON draws different bytes, with the new label.
func TestChangedFigureChangesChart(t *testing.T) {
	f, charts := loadCommitted(t)
	f.Retrieval.Sets[0].Rows[0].Hit1 = json.Number("31.7")
	f.Latency.Groups[0].Rows[0].P95 = json.Number("33.3")
	changed, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	for i := range charts {
		if bytes.Equal(charts[i].svg, changed[i].svg) {
			t.Errorf("%s: a changed figure drew the same chart", charts[i].name)
		}
	}
	if labels(t, "hit", changed[0].svg)["31.7"] == 0 || labels(t, "latency", changed[1].svg)["33.3"] == 0 {
		t.Error("a changed figure is not printed")
	}
}

// TestBadFiguresAreRefused: a figure off its axis, a p95 below its p50,
// a key the generator does not know: an error naming it, no chart.
func TestBadFiguresAreRefused(t *testing.T) {
	for name, edit := range map[string]func(f *Figures){
		"hit over 100": func(f *Figures) { f.Retrieval.Sets[1].Rows[2].Hit10 = "100.5" },
		"not a number": func(f *Figures) { f.Retrieval.Sets[0].Rows[0].Hit1 = "n/a" },
		"p95 below":    func(f *Figures) { f.Latency.Groups[0].Rows[1].P95 = "10.5" },
		"off the axis": func(f *Figures) { f.Latency.Groups[2].Rows[0].P50 = "4000" },
		"modes differ": func(f *Figures) { f.Retrieval.Sets[1].Rows[3].Mode = "fused" },
	} {
		f, _ := loadCommitted(t)
		edit(f)
		if _, err := render(f); err == nil {
			t.Errorf("%s: drawn", name)
		}
	}
	path := filepath.Join(t.TempDir(), "figures.json")
	if err := os.WriteFile(path, []byte(`{"retrieval": {"file": "a.svg", "tilte": "x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(path); err == nil || !strings.Contains(err.Error(), "tilte") {
		t.Errorf("an unknown key: %v", err)
	}
}

// TestRunWritesBesideTheFigures: the command writes both charts next to
// the JSON it reads.
func TestRunWritesBesideTheFigures(t *testing.T) {
	data, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "figures.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(path); err != nil {
		t.Fatal(err)
	}
	_, charts := loadCommitted(t)
	for _, c := range charts {
		got, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil || !bytes.Equal(got, c.svg) {
			t.Errorf("%s: %v, or not the chart", c.name, err)
		}
	}
}
