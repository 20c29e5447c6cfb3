package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/search/evaluate"
)

// TestEvalMissesAndCompare: `index eval --misses F --compare --json` on a
// made-up machine's real index (frob's man page, helpy's --help, a custom
// doc for gizmo): one JSON object per mode with per-source figures, the
// non-baseline modes paired with the baseline on every request, and a
// misses file whose lines are exactly the requests not ranked first.
func TestEvalMissesAndCompare(t *testing.T) {
	initGizmoMachine(t, true)
	dir := t.TempDir()
	queries := filepath.Join(dir, "q.jsonl")
	lines := []string{
		`{"query": "twiddle the bits of files recursively", "command": "frob"}`,
		`{"query": "undo twiddling of bits", "command": "unfrob"}`,
		`{"query": "make a file helpful quietly", "command": "helpy"}`,
		`{"query": "turn my widgets into gadgets", "command": "gizmo"}`,
		`{"query": "show the colors of bits", "command": "helpy"}`,
		`{"query": "list files", "command": "ls"}`,
	}
	if err := os.WriteFile(queries, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missesPath := filepath.Join(dir, "misses.jsonl")
	code, out, errText := runCLI(t, "index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "semantic,keyword,hybrid",
		"--compare", "--misses", missesPath, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d %s %s", code, out, errText)
	}
	var results []evaluate.EvalResult
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r evaluate.EvalResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("eval output %q: %v", line, err)
		}
		results = append(results, r)
		t.Logf("%s", line)
	}
	if len(results) != 3 || results[0].Mode != "semantic" || results[1].Mode != "keyword" || results[2].Mode != "hybrid" {
		t.Fatalf("eval printed %d results, want semantic, keyword, hybrid in that order:\n%s", len(results), out)
	}
	wantMisses := 0
	for _, r := range results {
		// ls is not on the made-up machine: counted apart
		if r.Queries != 5 || r.NotIndexed != 1 {
			t.Errorf("%s: %d queries, %d not indexed; want 5 and 1", r.Mode, r.Queries, r.NotIndexed)
		}
		// frob and unfrob (an alias of frob's page) are man, helpy help
		// (twice), gizmo custom
		if r.BySource["man"].Queries != 2 || r.BySource["help"].Queries != 2 || r.BySource["custom"].Queries != 1 {
			t.Errorf("%s: by source %+v, want man 2, help 2, custom 1", r.Mode, r.BySource)
		}
		if r.Mode == "semantic" {
			if r.Compared != nil {
				t.Errorf("the baseline is compared with itself: %+v", r.Compared)
			}
		} else if c := r.Compared; c == nil || c.Baseline != "semantic" || c.Wins+c.Losses+c.Ties != 5 || c.P <= 0 || c.P > 1 {
			t.Errorf("%s: comparison %+v, want against semantic on 5 requests, 0 < p <= 1", r.Mode, r.Compared)
		}
		wantMisses += r.Queries - int(r.Hit1*float64(r.Queries)+0.5)
	}
	data, err := os.ReadFile(missesPath)
	if err != nil {
		t.Fatalf("misses file: %v", err)
	}
	var misses []evaluate.Miss
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var m evaluate.Miss
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("misses line %q: %v", line, err)
		}
		misses = append(misses, m)
		if m.Query == "" || m.Command == "" || m.Source == "" || (m.Rank != nil && *m.Rank < 2) || len(m.Top) == 0 || len(m.Top) > 5 || m.Top[0].Command == m.Command {
			t.Errorf("misses line %s: want the request, command, source, a rank past 1 (or null) and the top 5 led by another command", line)
		}
	}
	if len(misses) != wantMisses || wantMisses == 0 {
		t.Errorf("%d misses lines, want %d (one per request not first, per mode; the set has at least one hard request):\n%s", len(misses), wantMisses, data)
	}

	// Plain text: a line per source, and the comparison with its p-value.
	code, out, _ = runCLI(t, "index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "semantic,hybrid", "--baseline", "hybrid")
	if code != 0 || !strings.Contains(out, "  custom ") || !strings.Contains(out, "  help ") ||
		!strings.Contains(out, "vs hybrid (RR@10, same 5 requests)") || !strings.Contains(out, "sign test p = ") {
		t.Errorf("plain eval (exit %d):\n%s", code, out)
	}

	checkLearnedWeightsLoop(t, queries, dir)
}

// checkLearnedWeightsLoop: `index eval --features F` writes learned
// mode's candidates per indexed request, the expected one marked;
// scripts/research/learn-ranker.py fits weights on it; `--learned-weights` reads
// them back (and refuses a feature it does not know).
func checkLearnedWeightsLoop(t *testing.T, queries, dir string) {
	t.Helper()
	featuresPath := filepath.Join(dir, "features.jsonl")
	code, out, errText := runCLI(t, "index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "learned", "--features", featuresPath)
	if code != 0 {
		t.Fatalf("eval --features: exit %d %s %s", code, out, errText)
	}
	data, err := os.ReadFile(featuresPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d feature lines, want one per indexed request (5):\n%s", len(lines), data)
	}
	for _, line := range lines {
		var l struct {
			Query, Command string
			Candidates     []struct {
				Command  string
				Expected bool
				Features map[string]float64
			}
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("features line %q: %v", line, err)
		}
		expected := 0
		for _, c := range l.Candidates {
			if c.Expected {
				expected++
				if c.Command != l.Command {
					t.Errorf("%q: %s marked expected, want %s", l.Query, c.Command, l.Command)
				}
			}
			for _, f := range []string{"rr_semantic", "sem_gap", "desc_gap", "rr_desc", "refs", "page_size"} {
				if _, ok := c.Features[f]; !ok && f != "rr_semantic" {
					t.Errorf("%q: candidate %s has no %s: %v", l.Query, c.Command, f, c.Features)
				}
			}
		}
		if len(l.Candidates) == 0 || expected > 1 {
			t.Errorf("%q: %d candidates, %d expected", l.Query, len(l.Candidates), expected)
		}
	}
	py := filepath.Join(os.Getenv("CMDAI_TOOLS"), "venv", "bin", "python")
	cmd := exec.Command(py, repoFile("scripts/research/learn-ranker.py"), "--l2", "0.1", "1", "--", featuresPath)
	weights, err := cmd.Output()
	if err != nil {
		t.Fatalf("learn-ranker.py: %v", err)
	}
	weightsPath := filepath.Join(dir, "weights.json")
	if err := os.WriteFile(weightsPath, weights, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText = runCLI(t, "index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "learned", "--learned-weights", weightsPath, "--json")
	if code != 0 || !strings.Contains(out, `"mode":"learned"`) {
		t.Errorf("eval --learned-weights (fitted): exit %d %s %s", code, out, errText)
	}
	if err := os.WriteFile(weightsPath, []byte(`{"popularity": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText = runCLI(t, "index", "eval", "--distro", "debian-12", "--queries", queries, "--mode", "learned", "--learned-weights", weightsPath)
	if code != 2 || !strings.Contains(errText, `unknown feature "popularity"`) {
		t.Errorf("eval with an unknown feature: exit %d %s, want 2 naming it", code, errText)
	}
}

// initGizmoMachine builds the real index (Chroma, model) of a made-up
// machine: frob's man page (unfrob its alias), helpy's --help (indexed
// only with helpFallback) and a custom doc for gizmo written as `index
// docs new` suggests.
func initGizmoMachine(t *testing.T, helpFallback bool) {
	t.Helper()
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	docs := t.TempDir()
	doc := "---\ncommand: gizmo\nkeywords: [\"widgets\"]\n---\n\n# gizmo\n\ngizmo turns widgets into gadgets.\n\n## Examples\n\n" +
		"**User**: \"turn my widgets into gadgets\"\n**Command**: `gizmo convert widgets`\n"
	if err := os.WriteFile(filepath.Join(docs, "gizmo.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, errOut := testIO()
	opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man}, DocsDirs: []string{docs},
		HelpFallback: helpFallback, ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(context.Background(), opts); err != nil {
		t.Fatalf("init: %v %s", err, errOut)
	}
}
