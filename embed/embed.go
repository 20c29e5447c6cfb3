// Package embed turns text into 384-dimension all-MiniLM-L6-v2 vectors on
// the local CPU, offline, with sentence-transformers' semantics (256 word
// pieces, mean pooling, L2 normalisation), and manages the installed model.
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Backends.
const (
	BackendORT = "ort" // ONNX Runtime through hugot: fast, needs libonnxruntime.so
	BackendGo  = "go"  // hugot's pure-Go backend: slow, always available
)

// Embedder embeds texts. Implementations are safe for one caller at a time.
type Embedder interface {
	// Embed returns one unit-length vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Info() Info
	Close() error
}

// Info describes the model and runtime an Embedder uses.
type Info struct {
	Model   string `json:"model"`
	Dims    int    `json:"dims"`
	SHA256  string `json:"sha256"`
	Variant string `json:"variant"`
	Backend string `json:"backend"`
}

// runner embeds one batch; the backends implement it.
type runner interface {
	run(texts []string) ([][]float32, error)
	close() error
}

// batcher sorts texts by length and embeds them in batches, so that the
// texts padded together have similar lengths and little compute is spent
// on padding.
type batcher struct {
	r         runner
	info      Info
	batchSize int
}

// DefaultBatchSize is one text per run: on man-page chunks (tens to 256
// word pieces) with 2 CPUs, batches of 1 ran 44 sentences/s against 36 for
// batches of 8 and 27 for 32 (BENCHMARKS.md), since padding and larger
// tensors cost more than the per-call overhead they save. Options.BatchSize
// overrides it for machines where batching pays.
const DefaultBatchSize = 1

func (b *batcher) Info() Info { return b.info }

func (b *batcher) Close() error { return b.r.close() }

func (b *batcher) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return len(texts[order[i]]) < len(texts[order[j]]) })
	out := make([][]float32, len(texts))
	bs := b.batchSize
	if bs <= 0 {
		bs = DefaultBatchSize
	}
	batch := make([]string, 0, bs)
	for start := 0; start < len(order); start += bs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+bs, len(order))
		batch = batch[:0]
		for _, i := range order[start:end] {
			batch = append(batch, texts[i])
		}
		vecs, err := b.r.run(batch)
		if err != nil {
			return nil, fmt.Errorf("embed batch of %d: %w", len(batch), err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embed: backend returned %d vectors for %d texts", len(vecs), len(batch))
		}
		for k, i := range order[start:end] {
			if len(vecs[k]) != b.info.Dims {
				return nil, fmt.Errorf("embed: backend returned %d dims, want %d", len(vecs[k]), b.info.Dims)
			}
			out[i] = vecs[k]
		}
	}
	return out, nil
}

// Options choose the model and runtime.
type Options struct {
	// Dir is the installed model directory.
	Dir string
	// Variant is VariantFP32, VariantInt8, or "" for the backend's default
	// (see Open).
	Variant string
	// Backend is BackendORT, BackendGo or "" (ORT when available, else Go
	// with a notice).
	Backend string
	// ORTLibDir is the directory holding libonnxruntime.so; "" searches
	// the usual places (see FindORTLibDir).
	ORTLibDir string
	// Threads for ONNX Runtime's intra-op pool; 0 means one per CPU.
	Threads int
	// BatchSize is the number of texts run together; 0 is the default.
	BatchSize int
	// Notice receives one-line notices (the backend fallback).
	Notice func(string)
}

// ErrNoORT means the ONNX Runtime backend cannot run here.
var ErrNoORT = errors.New("ONNX Runtime backend unavailable")

// Open verifies the installed model and starts a backend for it.
//
// With no Variant, ONNX Runtime runs int8 (2x faster than fp32 for about
// 1 % of retrieval hits: BENCHMARKS.md) and the pure-Go backend fp32, the
// only variant it can run.
func Open(ctx context.Context, o Options) (Embedder, error) { return open(ctx, o, embedder) }

func open(ctx context.Context, o Options, k kind) (Embedder, error) {
	asked := o.Variant
	switch {
	case o.Backend != "" && o.Backend != BackendORT && o.Backend != BackendGo:
		return nil, fmt.Errorf("unknown embedding backend %q: use %s or %s", o.Backend, BackendORT, BackendGo)
	case o.Backend == BackendGo && asked == VariantInt8:
		return nil, errors.New("the pure-Go backend cannot run the int8 model: use --model-variant fp32, or the ONNX Runtime backend (--embed-backend ort; `cmdai doctor` says whether it can run)")
	}
	if o.Backend != BackendGo {
		if o.Variant == "" {
			o.Variant = DefaultVariant
		}
		m, err := verify(o.Dir, o.Variant, k)
		if err != nil {
			return nil, err
		}
		r, err := newORTRunner(o)
		switch {
		case err == nil:
			return newBatcher(r, m, o, BackendORT), nil
		case o.Backend == BackendORT || !errors.Is(err, ErrNoORT):
			return nil, err
		case asked == VariantInt8:
			// Not "use --model-variant fp32": an int8 index refuses an fp32
			// query, so that advice was a dead end for every query.
			return nil, fmt.Errorf("%w, and the pure-Go backend cannot run the int8 model, which this index (or --model-variant) needs: install ONNX Runtime (`cmdai doctor` says what is missing and how; a release archive and `make install` carry it), or build an fp32 index that the pure-Go backend can query (`cmdai index init --force --model-variant fp32`, slow)", err)
		}
		if o.Notice != nil {
			o.Notice(fmt.Sprintf("note: %v; using the pure-Go backend with the fp32 model, which is much slower (`cmdai doctor` says how to get ONNX Runtime; pass --embed-backend go to silence this)", err))
		}
	}
	o.Variant = VariantFP32
	m, err := verify(o.Dir, o.Variant, k)
	if err != nil {
		return nil, err
	}
	r, err := newGoRunner(o)
	if err != nil {
		return nil, err
	}
	return newBatcher(r, m, o, BackendGo), nil
}

func newBatcher(r runner, m Manifest, o Options, backend string) Embedder {
	info := Info{Model: m.Name, Dims: m.Dims, SHA256: m.ModelSHA256(o.Variant), Variant: o.Variant, Backend: backend}
	return &batcher{r: r, info: info, batchSize: o.BatchSize}
}

// Cosine is the cosine similarity of two vectors.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
