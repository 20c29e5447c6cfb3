package embed

import (
	"context"
	"reflect"
	"testing"
)

// countingRunner embeds a text as a vector derived from its length and
// records the batches it was given.
type countingRunner struct{ batches [][]string }

func (r *countingRunner) run(texts []string) ([][]float32, error) {
	r.batches = append(r.batches, append([]string(nil), texts...))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = vec(float32(len(t)))
	}
	return out, nil
}

func (r *countingRunner) close() error { return nil }

func TestBatcherSortsByLengthAndKeepsOrder(t *testing.T) {
	r := &countingRunner{}
	b := &batcher{r: r, info: Info{Dims: Dims}, batchSize: 2}
	texts := []string{"ccc", "a", "bbbbb", "dd", "e"}
	vecs, err := b.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, txt := range texts {
		if vecs[i][0] != float32(len(txt)) {
			t.Errorf("vector %d belongs to another text", i)
		}
	}
	want := [][]string{{"a", "e"}, {"dd", "ccc"}, {"bbbbb"}}
	if !reflect.DeepEqual(r.batches, want) {
		t.Errorf("batches = %q, want %q", r.batches, want)
	}
}

// vec is a vector of Dims values, all x.
func vec(x float32) []float32 {
	v := make([]float32, Dims)
	for i := range v {
		v[i] = x
	}
	return v
}
