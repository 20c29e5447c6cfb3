package adapter

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/embed"
)

// identity3 is the 3x3 identity with an optional bias.
func identity3(t *testing.T, b []float32) *Adapter {
	t.Helper()
	a, err := New(3, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.adapter")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestApplyMapsAndRenormalises(t *testing.T) {
	// swap the first two coordinates and double the third, then a bias
	a, err := New(3, []float32{0, 1, 0, 1, 0, 0, 0, 0, 2}, []float32{0, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	in := []float32{0.6, 0.8, 0}
	out, err := a.Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	// W·v + b = (0.8, 0.6, 1); its norm is sqrt(2)
	want := []float32{0.8 / math.Sqrt2, 0.6 / math.Sqrt2, 1 / math.Sqrt2}
	for i := range want {
		if math.Abs(float64(out[i]-want[i])) > 1e-6 {
			t.Fatalf("Apply = %v, want %v", out, want)
		}
	}
	if in[0] != 0.6 || in[1] != 0.8 {
		t.Errorf("Apply changed its input: %v", in)
	}
}

func TestApplyIdentityKeepsUnitVector(t *testing.T) {
	out, err := identity3(t, nil).Apply([]float32{0, 0.6, 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != 0 || math.Abs(float64(out[1]-0.6)) > 1e-7 || math.Abs(float64(out[2]-0.8)) > 1e-7 {
		t.Errorf("identity moved the vector: %v", out)
	}
}

func TestApplyRejectsOtherWidthAndZero(t *testing.T) {
	if _, err := identity3(t, nil).Apply(make([]float32, 4)); err == nil || !strings.Contains(err.Error(), "width 3") {
		t.Errorf("4-wide vector: err %v, want a width error", err)
	}
	if _, err := identity3(t, nil).Apply(make([]float32, 3)); err == nil || !strings.Contains(err.Error(), "zero vector") {
		t.Errorf("zero vector: err %v", err)
	}
}

func TestFileRoundTrip(t *testing.T) {
	for _, b := range [][]float32{nil, {0.5, -0.25, 0}} {
		a := identity3(t, b)
		got, err := Read(writeFile(t, a.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		if got.Dims() != 3 || got.SHA256() != a.SHA256() || (got.b == nil) != (b == nil) {
			t.Fatalf("read back dims %d sha %s bias %v, want 3 %s %v", got.Dims(), got.SHA256(), got.b, a.SHA256(), b)
		}
		out, _ := got.Apply([]float32{1, 0, 0})
		want, _ := a.Apply([]float32{1, 0, 0})
		for i := range out {
			if out[i] != want[i] {
				t.Fatalf("read-back adapter maps to %v, want %v", out, want)
			}
		}
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	good := identity3(t, []float32{1, 2, 3}).Encode()
	flipped := append([]byte{}, good...)
	flipped[len(Magic)+12] ^= 1 // a bit of W
	cut := good[:len(good)-40]
	wrongMagic := append([]byte("cmdai-adapter9\n"), good[len(Magic):]...)
	// a header claiming width 4 over 3x3 values, with a valid checksum
	a := identity3(t, nil)
	a.dims = 4
	wrongShape := a.Encode()
	nan, _ := New(1, []float32{1}, nil)
	nan.w[0] = float32(math.NaN())
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"empty":       {nil, "not an adapter file"},
		"magic":       {wrongMagic, "not an adapter file"},
		"bit flipped": {flipped, "checksum mismatch"},
		"cut short":   {cut, "checksum mismatch"},
		"wrong shape": {wrongShape, "want 64 for width 4"},
		"NaN":         {nan.Encode(), "NaN"},
	} {
		_, err := Read(writeFile(t, tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "make reranker") {
			t.Errorf("%s: err %v, want one saying %q and how to fix it", name, err, tc.want)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: err %v", err)
	}
}

func TestNewRejectsWrongShapes(t *testing.T) {
	if _, err := New(2, []float32{1, 0, 0}, nil); err == nil {
		t.Error("3 values for a 2x2 matrix accepted")
	}
	if _, err := New(2, []float32{1, 0, 0, 1}, []float32{1}); err == nil {
		t.Error("1-wide bias for width 2 accepted")
	}
	if _, err := New(0, nil, nil); err == nil {
		t.Error("width 0 accepted")
	}
}

// BenchmarkApply384 is the cost per request at all-MiniLM-L6-v2's width.
func BenchmarkApply384(b *testing.B) {
	w := make([]float32, 384*384)
	for i := range 384 {
		w[i*384+i] = 1
	}
	a, err := New(384, w, make([]float32, 384))
	if err != nil {
		b.Fatal(err)
	}
	v := make([]float32, 384)
	v[0] = 1
	b.ResetTimer()
	for range b.N {
		if _, err := a.Apply(v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadsWhatTrainAdapterWrites: testdata/python-2x2.adapter is
// scripts/research/train-adapter.py's encode of W = [[0, 1], [2, 0]],
// b = (0.5, -1): the two sides agree on the format.
func TestReadsWhatTrainAdapterWrites(t *testing.T) {
	a, err := Read(filepath.Join("testdata", "python-2x2.adapter"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Apply([]float32{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// W·v + b = (0.5 + 0.5, 2 - 1) = (1, 1), normalised
	if d := math.Abs(float64(out[0]-1/math.Sqrt2)) + math.Abs(float64(out[1]-1/math.Sqrt2)); d > 1e-6 {
		t.Errorf("Apply = %v, want (0.707, 0.707)", out)
	}
}

func TestNilAdapterGivesTheVectorBack(t *testing.T) {
	var a *Adapter
	in := []float32{0.6, 0.8}
	out, err := a.Apply(in)
	if err != nil || len(out) != 2 || out[0] != 0.6 || out[1] != 0.8 {
		t.Fatalf("nil adapter: %v, %v; want the input back", out, err)
	}
}

func TestAttachAndOf(t *testing.T) {
	a := identity3(t, nil)
	if Attach(nil, a) != nil {
		t.Error("Attach(nil, a) must stay nil: no reranker, no adapter")
	}
	var e fakeEmbedder
	if Attach(e, nil) != e || Of(e) != nil {
		t.Error("without an adapter, Attach must give the reranker back and Of nil")
	}
	if got := Of(Attach(e, a)); got != a {
		t.Errorf("Of(Attach(e, a)) = %v, want a", got)
	}
	b := identity3(t, []float32{1, 0, 0})
	if got := Of(Attach(Attach(e, a), b)); got != b {
		t.Error("attaching again must replace the adapter (index eval --adapter)")
	}
}

func TestFromDir(t *testing.T) {
	dir := t.TempDir()
	if a, err := FromDir(dir, 3); a != nil || err != nil {
		t.Fatalf("no file: %v, %v; want nil, nil (a reranker built before the adapter)", a, err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), identity3(t, nil).Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, err := FromDir(dir, 3); err != nil || a.Dims() != 3 {
		t.Fatalf("FromDir: %v, %v", a, err)
	}
	if _, err := FromDir(dir, 384); !errors.Is(err, embed.ErrCorruptReranker) || !strings.Contains(err.Error(), "maps vectors of 3") {
		t.Errorf("an adapter of another width: %v, want ErrCorruptReranker naming both widths", err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("not an adapter"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FromDir(dir, 3); !errors.Is(err, embed.ErrCorruptReranker) || !strings.Contains(err.Error(), "make reranker") {
		t.Errorf("a damaged file: %v, want an error saying how to rebuild it", err)
	}
}

type fakeEmbedder struct{}

func (fakeEmbedder) Embed(context.Context, []string) ([][]float32, error) { return nil, nil }
func (fakeEmbedder) Info() embed.Info                                     { return embed.Info{} }
func (fakeEmbedder) Close() error                                         { return nil }
