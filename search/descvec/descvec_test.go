package descvec

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
)

// countingEmbedder gives each text a unit vector from its length, and
// counts the texts it was asked to embed.
type countingEmbedder struct{ texts int }

func (e *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if len(t)%2 == 0 {
			out[i] = []float32{1, 0}
		} else {
			out[i] = []float32{0, 1}
		}
	}
	return out, nil
}
func (e *countingEmbedder) Info() embed.Info { return embed.Info{SHA256: "model-sha-0123456789abcdef"} }
func (e *countingEmbedder) Close() error     { return nil }

func keywords(descs map[string]string) *bm25.Index {
	var docs []bm25.Doc
	for c, d := range descs {
		docs = append(docs, bm25.Doc{ID: c + "#NAME", Command: c, Text: c + " " + d,
			Meta: index.Metadata{Command: c, Kind: index.KindSummary, Description: d}})
	}
	return bm25.Build(docs)
}

func forget() {
	descCache.Lock()
	descCache.kw, descCache.d = nil, nil
	descCache.Unlock()
}

// Each command's description is embedded once: later processes read the
// vectors from the file beside the keyword index; another index (another
// description) gets a file of its own; a damaged file is embedded again.
func TestVectorsAreKeptBesideTheIndex(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e := &countingEmbedder{}
	kw := keywords(map[string]string{"mv": "move (rename) files", "ls": "list directory contents", "x": ""})
	forget()
	v, err := Of(ctx, kw, e, dir)
	if err != nil || e.texts != 3 {
		t.Fatalf("first: %v, embedded %d texts, want 3", err, e.texts)
	}
	sims := v.Similarities([]float32{1, 0})
	// "move (rename) files" has 19 letters: odd, so {0, 1}; "x" has none
	// and is embedded as its name
	if sims["mv"] != 0 || sims["ls"] != 0 || sims["x"] != 0 {
		t.Errorf("similarities %v", sims)
	}
	if sims := v.Similarities([]float32{0, 1}); sims["mv"] != 1 || sims["ls"] != 1 || sims["x"] != 1 {
		t.Errorf("similarities to {0, 1}: %v", sims)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "descriptions-*.vec"))
	if len(files) != 1 {
		t.Fatalf("files %v, want one", files)
	}

	forget() // a new process
	if _, err := Of(ctx, kw, e, dir); err != nil || e.texts != 3 {
		t.Errorf("second process: %v, embedded %d texts in all, want the file read", err, e.texts)
	}

	other := keywords(map[string]string{"mv": "move files", "ls": "list directory contents", "x": ""})
	if _, err := Of(ctx, other, e, dir); err != nil || e.texts != 6 {
		t.Errorf("another index: %v, embedded %d texts in all, want 6", err, e.texts)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "descriptions-*.vec")); len(files) != 2 {
		t.Errorf("files %v, want one per index", files)
	}

	if err := os.Truncate(files[0], 20); err != nil {
		t.Fatal(err)
	}
	forget()
	if _, err := Of(ctx, kw, e, dir); err != nil || e.texts != 9 {
		t.Errorf("a cut file: %v, embedded %d texts in all, want 9 (embedded again)", err, e.texts)
	}
}
