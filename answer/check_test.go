package answer

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/testmode"
)

// A status checks a sample of a large collection's records (StatusSample
// of them, spread over it), and finds a collection rewritten wholesale;
// asked for all, it checks every one; a small collection is checked
// whole either way. On a real Chroma server.
func TestCheckIndexSamplesALargeCollection(t *testing.T) {
	testmode.Heavy(t, "the Chroma server")
	if os.Getenv("CMDAI_TOOLS") == "" {
		t.Setenv("CMDAI_TOOLS", filepath.Join("..", ".tools"))
	}
	bin, err := chroma.FindBin("", os.Getenv)
	if err != nil {
		t.Fatalf("%v (run the tests with `make test`, which installs Chroma)", err)
	}
	ctx := context.Background()
	srv, err := chroma.StartServer(ctx, chroma.ServerOptions{Bin: bin, DataDir: filepath.Join(t.TempDir(), "chroma")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	key := index.NewRecordKey(filepath.Join(t.TempDir(), index.KeyFileName))
	st, err := chroma.Connect(ctx, chroma.Config{URL: srv.URL, Auth: key})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 3*StatusSample + 17
	var recs []chroma.Record
	for i := range n {
		recs = append(recs, chroma.Record{ID: fmt.Sprintf("cmd%04d.1#NAME", i), Document: fmt.Sprintf("cmd%04d(1) - does thing %d", i, i),
			Metadata: map[string]any{"command": fmt.Sprintf("cmd%04d", i), "kind": "summary"}, Embedding: unitOf(1, float32(i%7), 0)})
	}
	check := func(name string, all bool) *index.Verification {
		t.Helper()
		c, err := st.OpenCollection(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := CheckIndex(ctx, c, all)
		if err != nil || v == nil {
			t.Fatalf("CheckIndex(%s, %v): %v, %v", name, all, v, err)
		}
		return v
	}
	big, err := st.CreateCollection(ctx, "big", map[string]any{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if v := check("big", false); !v.Sampled || v.Records != StatusSample || !v.OK() {
		t.Errorf("a status of %d records: %+v, want a sample of %d, all verified", n, *v, StatusSample)
	}
	if v := check("big", true); v.Sampled || v.Records != n || !v.OK() {
		t.Errorf("--verify of %d records: %+v, want every one checked", n, *v)
	}
	// rewritten wholesale by a writer without the key: the sample sees it
	other, err := chroma.Connect(ctx, chroma.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	oc, err := other.OpenCollection(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	rewritten := make([]chroma.Record, len(recs))
	for i, r := range recs {
		r.Document += " (rewritten)"
		rewritten[i] = r
	}
	if err := oc.Upsert(ctx, rewritten); err != nil {
		t.Fatal(err)
	}
	if v := check("big", false); v.OK() || v.Failed() != StatusSample || !strings.Contains(v.Summary(), "--verify") {
		t.Errorf("a sample of a rewritten collection: %+v (%s), want every sampled record failed and --verify named", *v, v.Summary())
	}
	small, err := st.CreateCollection(ctx, "small", map[string]any{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if err := small.Upsert(ctx, recs[:StatusSample/2]); err != nil {
		t.Fatal(err)
	}
	if v := check("small", false); v.Sampled || v.Records != StatusSample/2 {
		t.Errorf("a status of %d records: %+v, want them all checked", StatusSample/2, *v)
	}
	// the sealed metadata of a complete index counts its records: some
	// deleted (or added) by a writer without the key is seen by the
	// sample and by --verify, though every record left passes its check
	counted, err := st.CreateCollection(ctx, "counted", index.Meta{Complete: true, Chunks: n, Commands: n}.Map())
	if err != nil {
		t.Fatal(err)
	}
	if err := counted.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if v := check("counted", false); !v.OK() || v.SealedCount != n || v.Held != n {
		t.Errorf("a whole counted index: %+v (%s), want it verified", *v, v.Summary())
	}
	oc, err = other.OpenCollection(ctx, "counted")
	if err != nil {
		t.Fatal(err)
	}
	if err := oc.Delete(ctx, []string{recs[5].ID, recs[6].ID}); err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		v := check("counted", all)
		if v.OK() || v.Failed() != 0 || !v.CountMismatch() || !strings.Contains(v.Summary(), fmt.Sprintf("counts %d records and the collection holds %d", n, n-2)) {
			t.Errorf("two records deleted (all %v): %+v (%s), want TAMPERED by the count", all, *v, v.Summary())
		}
	}
}

// unitOf is xs scaled to unit length, as the model's vectors are.
func unitOf(xs ...float32) []float32 {
	var sum float64
	for _, x := range xs {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(float64(x) / math.Sqrt(sum))
	}
	return out
}

// TestLookIn: a command is on a caller's PATH when one of its absolute
// directories holds an executable regular file of that name: not a
// file without the execute bit, a directory, a name with a slash, nor
// anything in a relative entry (the answerer's working directory, not
// the caller's). An explain request without a path keeps the answerer's
// own lookup, and none when the index is not this machine's.
func TestLookIn(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"tool": 0o755, "plain": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	on := LookIn("relative:" + dir)
	for name, want := range map[string]bool{"tool": true, "plain": false, "sub": false, "sub/x": false, "": false, "missing": false} {
		if on(name) != want {
			t.Errorf("%q on the path: %v, want %v", name, on(name), want)
		}
	}
	if LookIn(".")("tool") {
		t.Error("a relative entry was searched")
	}
	own := func(string) bool { return true }
	if got := (ExplainRequest{}).OnPath(own); got == nil || !got("anything") {
		t.Error("no path: the answerer's own lookup should stay")
	}
	if (ExplainRequest{Path: dir}).OnPath(nil) != nil {
		t.Error("an index of another distribution judges nothing installed, whatever the path")
	}
	if (ExplainRequest{Path: dir}).OnPath(own)("missing") {
		t.Error("with a path, the caller's lookup should answer")
	}
}
