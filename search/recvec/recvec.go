// Package recvec keeps the vectors of an index's records, in memory and
// in a file beside the keyword index, read from the collection once
// (checked against their authenticators): the option ranker's cosines
// for every answered command without a round trip per query, and what
// each distance Chroma answers is compared with (Agrees), so that a
// vector replaced on the server since is known without reading it.
package recvec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/firstuse"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search/bm25"
)

// Source is a collection that gives its records' vectors by id
// (chroma.Collection), and says which build it is.
type Source interface {
	Name() string
	Metadata() map[string]any
	Count(ctx context.Context) (int, error)
	Embeddings(ctx context.Context, ids []string) (map[string][]float32, error)
}

// Vectors are the records' vectors, each quantised to int8 with its own
// scale (cosines within about 0.01 of float32's; a quarter of the
// memory: 9.5 MB for 24,684 records of 384 dimensions).
type Vectors struct {
	rows  map[string]int
	dims  int
	q     []int8
	scale []float32
}

// batch is how many vectors one read asks for: Chroma answers them as
// JSON, about 4 KB a vector.
const batch = 500

// cache holds the Vectors of the keyword index last asked about (a
// search.Searcher is a value, copied freely: it cannot hold them).
var cache struct {
	sync.Mutex
	kw *bm25.Index
	v  *Vectors
}

// Of returns the vectors of kw's records: from
// memory, else from the file in dir an earlier process wrote for this
// build of the collection (its name, build time, count and model), else
// read from src (a few seconds for a whole machine's index, once per
// build) and saved there. An empty dir keeps them in memory only.
func Of(ctx context.Context, kw *bm25.Index, src Source, dir string) (*Vectors, error) {
	cache.Lock()
	defer cache.Unlock()
	if cache.kw == kw && cache.v != nil {
		return cache.v, nil
	}
	ids := recordIDs(kw)
	path := ""
	if dir != "" {
		meta := index.ParseMeta(src.Metadata())
		n, err := src.Count(ctx)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		fmt.Fprintf(h, "cmdai-recvec-v2\x00%s\x00%s\x00%d\x00%d\x00%s\x00%d\x00", src.Name(), meta.BuiltAt.UTC().Format(time.RFC3339Nano), n, meta.Chunks, meta.ModelSHA256, len(ids))
		path = filepath.Join(dir, src.Name()+"-records-"+hex.EncodeToString(h.Sum(nil)[:8])+".vec")
	}
	v, err := read(path, ids)
	if err != nil {
		done := firstuse.Begin(ctx, "reading the records' vectors")
		v, err = fetch(ctx, src, ids)
		done()
		if err != nil {
			return nil, err
		}
		if path != "" {
			// a cache: a failed write costs the next process the reads
			_ = write(path, v, ids)
		}
	}
	cache.kw, cache.v = kw, v
	return v, nil
}

// recordIDs are the ids of kw's records, sorted.
func recordIDs(kw *bm25.Index) []string {
	ids := make([]string, kw.Len())
	for i := range kw.Len() {
		ids[i] = kw.ID(i)
	}
	sort.Strings(ids)
	return ids
}

func fetch(ctx context.Context, src Source, ids []string) (*Vectors, error) {
	v := &Vectors{rows: make(map[string]int, len(ids))}
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(len(ids), start+batch)]
		got, err := src.Embeddings(ctx, part)
		if err != nil {
			return nil, fmt.Errorf("read the records' vectors: %w", err)
		}
		for _, id := range part {
			vec, ok := got[id]
			if !ok || len(vec) == 0 {
				continue // gone since the keyword index was built, or failed its check: no cosine
			}
			if v.dims == 0 {
				v.dims = len(vec)
			}
			if len(vec) != v.dims {
				return nil, fmt.Errorf("record %s has a vector of %d dimensions, others %d", id, len(vec), v.dims)
			}
			v.add(id, vec)
		}
	}
	return v, nil
}

// add quantises vec: each value over its largest magnitude, times 127.
func (v *Vectors) add(id string, vec []float32) {
	top := float32(0)
	for _, x := range vec {
		top = max(top, float32(math.Abs(float64(x))))
	}
	scale := top / 127
	v.rows[id] = len(v.scale)
	v.scale = append(v.scale, scale)
	for _, x := range vec {
		q := int8(0)
		if scale > 0 {
			q = int8(math.Round(float64(x / scale)))
		}
		v.q = append(v.q, q)
	}
}

// Cosine is the cosine of the record's vector with vec; ok is false for
// a record it does not hold.
func (v *Vectors) Cosine(id string, vec []float32) (float64, bool) {
	r, ok := v.rows[id]
	if !ok || len(vec) != v.dims {
		return 0, false
	}
	row := v.q[r*v.dims : (r+1)*v.dims]
	var dot, nq, nv float64
	for j, x := range row {
		dot += float64(x) * float64(vec[j])
		nq += float64(vec[j]) * float64(vec[j])
		nv += float64(x) * float64(x)
	}
	if nq == 0 || nv == 0 {
		return 0, true
	}
	return dot / math.Sqrt(nq*nv), true
}

// DistanceTolerance is how far a distance Chroma answers may be from the
// one of the vector held (int8, within about 0.01; the largest seen on
// this machine's index is in BENCHMARKS.md) before Agrees says the
// server's vector is not the one sealed.
const DistanceTolerance = 0.03

// Agrees says whether distance, Chroma's cosine distance between vec
// and record id's vector, is the one of the vector v holds, which passed
// its check when it was read: false when it is not, or v holds none
// (the record failed its check then).
func (v *Vectors) Agrees(id string, vec []float32, distance float64) bool {
	c, ok := v.Cosine(id, vec)
	return ok && math.Abs((1-distance)-c) <= DistanceTolerance
}

// Len is how many records' vectors v holds.
func (v *Vectors) Len() int { return len(v.scale) }

// The file: magic, then count and dims, then per record its row in ids
// order (-1: none held) and, for each held, its scale (float32) and its
// dims int8 values; little-endian. The ids are not stored: the file's
// name covers the build they come from, and their count is checked.
const magic = "cmdai-recvec2\n"

func write(path string, v *Vectors, ids []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, magic); err != nil {
			return err
		}
		if err := binary.Write(w, binary.LittleEndian, [2]uint32{uint32(len(ids)), uint32(v.dims)}); err != nil {
			return err
		}
		for _, id := range ids {
			r, ok := v.rows[id]
			if !ok {
				if err := binary.Write(w, binary.LittleEndian, uint8(0)); err != nil {
					return err
				}
				continue
			}
			if err := binary.Write(w, binary.LittleEndian, uint8(1)); err != nil {
				return err
			}
			if err := binary.Write(w, binary.LittleEndian, v.scale[r]); err != nil {
				return err
			}
			if err := binary.Write(w, binary.LittleEndian, v.q[r*v.dims:(r+1)*v.dims]); err != nil {
				return err
			}
		}
		return nil
	})
}

// read reads what write wrote for these ids; any mismatch (another
// count, a cut file) is an error: read them from the collection again.
func read(path string, ids []string) (*Vectors, error) {
	if path == "" {
		return nil, fmt.Errorf("no keyword directory")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(b)
	head := make([]byte, len(magic))
	var size [2]uint32
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("%s: not a record vector file", path)
	}
	if err := binary.Read(r, binary.LittleEndian, &size); err != nil || int(size[0]) != len(ids) || size[1] > 4096 {
		return nil, fmt.Errorf("%s: header does not match the index", path)
	}
	v := &Vectors{rows: make(map[string]int, len(ids)), dims: int(size[1])}
	rest := b[len(b)-r.Len():] // parsed by hand: binary.Read per record is 20x slower
	for _, id := range ids {
		if len(rest) < 1 {
			return nil, fmt.Errorf("%s: cut short", path)
		}
		held := rest[0]
		rest = rest[1:]
		if held == 0 {
			continue
		}
		if len(rest) < 4+v.dims {
			return nil, fmt.Errorf("%s: cut short", path)
		}
		v.rows[id] = len(v.scale)
		v.scale = append(v.scale, math.Float32frombits(binary.LittleEndian.Uint32(rest)))
		for _, x := range rest[4 : 4+v.dims] {
			v.q = append(v.q, int8(x))
		}
		rest = rest[4+v.dims:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%s: longer than its header says", path)
	}
	return v, nil
}
