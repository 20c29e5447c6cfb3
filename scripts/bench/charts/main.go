// Command charts draws BENCHMARKS.md's two charts from the headline
// figures in docs/benchmarks/figures.json: hit@1/5/10 per ranking mode on
// the two test sets, and answer latency through serve and one-shot. The
// SVGs are written beside the JSON, by hand (plain shapes and text, no
// font, script or link: GitHub's markdown shows them as images), and are
// the same bytes on every run, so that a test can hold the committed
// charts to the committed figures.
//
//	go run ./scripts/bench/charts [-figures docs/benchmarks/figures.json]
//
// A figure is kept as the JSON writes it (json.Number) and printed so,
// never reformatted: the chart says "29.0" where BENCHMARKS.md does.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// Figures is figures.json.
type Figures struct {
	Retrieval Retrieval `json:"retrieval"`
	Latency   Latency   `json:"latency"`
}

// Retrieval is chart (a): per test set, hit@k per ranking mode.
type Retrieval struct {
	File  string   `json:"file"`
	Title string   `json:"title"`
	Notes []string `json:"notes"`
	Sets  []struct {
		Name string   `json:"name"`
		Rows []HitRow `json:"rows"`
	} `json:"sets"`
}

// HitRow is one mode's hit@1, @5 and @10 in percent, and where
// BENCHMARKS.md gives them.
type HitRow struct {
	Mode   string      `json:"mode"`
	Hit1   json.Number `json:"hit1"`
	Hit5   json.Number `json:"hit5"`
	Hit10  json.Number `json:"hit10"`
	Source string      `json:"source"`
}

// Latency is chart (b): groups of measured answer times.
type Latency struct {
	File   string   `json:"file"`
	Title  string   `json:"title"`
	Notes  []string `json:"notes"`
	Groups []struct {
		Name string       `json:"name"`
		Rows []LatencyRow `json:"rows"`
	} `json:"groups"`
}

// LatencyRow is one measurement in milliseconds: a median, and a p95
// when one was measured ("" otherwise); Reranker marks an answer that
// ran the reranker (drawn in its own colour).
type LatencyRow struct {
	Label    string      `json:"label"`
	P50      json.Number `json:"p50"`
	P95      json.Number `json:"p95"`
	Reranker bool        `json:"reranker"`
	Source   string      `json:"source"`
}

func main() {
	figures := flag.String("figures", "docs/benchmarks/figures.json", "the headline figures; the charts are written beside it")
	flag.Parse()
	if err := run(*figures); err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	f, err := load(path)
	if err != nil {
		return err
	}
	charts, err := render(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range charts {
		out := filepath.Join(filepath.Dir(path), c.name)
		if err := os.WriteFile(out, c.svg, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", out)
	}
	return nil
}

// load reads figures.json, refusing keys it does not know (a typo would
// drop a figure from the chart without a word).
func load(path string) (*Figures, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run from the repository's root, or pass -figures)", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var f Figures
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// chart is one SVG to write, by file name.
type chart struct {
	name string
	svg  []byte
}

func render(f *Figures) ([]chart, error) {
	if f.Retrieval.File == "" || f.Latency.File == "" {
		return nil, errors.New(`each chart needs its "file"`)
	}
	hit, err := hitChart(&f.Retrieval)
	if err != nil {
		return nil, fmt.Errorf("retrieval: %w", err)
	}
	lat, err := latencyChart(&f.Latency)
	if err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	return []chart{{f.Retrieval.File, hit}, {f.Latency.File, lat}}, nil
}
