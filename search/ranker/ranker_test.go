package ranker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A name ending in a version is told apart from one with digits of its
// own.
func TestVersionSuffix(t *testing.T) {
	for name, want := range map[string]bool{"llvm-nm-14": true, "python3.11": true, "FileCheck-14": true,
		"md5sum": false, "base64": false, "x86_64": false, "mkfs.ext4": false, "python3": false} {
		if got := HasVersion(name); got != want {
			t.Errorf("%s: version suffix %v, want %v", name, got, want)
		}
	}
}

// --learned-weights: a JSON object of known features; an unknown feature,
// bad JSON or a missing file is refused with what to do.
func TestReadWeights(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	w, err := ReadWeights(write("ok.json", `{"rr_semantic": 2, "refs": 0.5}`))
	if err != nil || w["rr_semantic"] != 2 || w["refs"] != 0.5 || len(w) != 2 {
		t.Errorf("ReadWeights = %v, %v", w, err)
	}
	for name, body := range map[string]string{"unknown.json": `{"popularity": 1}`, "bad.json": `[1, 2]`} {
		if _, err := ReadWeights(write(name, body)); err == nil || !strings.Contains(err.Error(), "learned weights") {
			t.Errorf("%s: %v, want an error", name, err)
		}
	}
	if _, err := ReadWeights(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file: no error")
	}
	for feature := range Default {
		if _, err := ReadWeights(write("one.json", `{"`+feature+`": 1}`)); err != nil {
			t.Errorf("Default's %s is not a known feature: %v", feature, err)
		}
	}
}

// The score is the same sum every time: the features are added in one
// fixed order, not the map's.
func TestScoreIsDeterministic(t *testing.T) {
	w := Weights{}
	values := map[string]float64{}
	for i, f := range Features() {
		w[f] = 1.0 / float64(3+i)
		values[f] = 0.1 * float64(7+i*i)
	}
	first := w.Score(values)
	for range 200 {
		if got := w.Score(values); got != first {
			t.Fatalf("Score = %v, then %v", first, got)
		}
	}
	if first <= 0 {
		t.Errorf("Score = %v, want the positive sum", first)
	}
}
