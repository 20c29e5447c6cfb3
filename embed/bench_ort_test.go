//go:build ORT

package embed_test

// Embedding benchmarks on real man-page chunks. Run them with `make bench`
// (scripts/bench/bench-embed.sh runs each in its own process, so that the peak
// RSS reported is that configuration's alone). Figures: BENCHMARKS.md.

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daulet/tokenizers"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/embed"
)

// benchCommands are common commands whose pages give the corpus: a mix of
// short descriptions, long option lists and examples.
var benchCommands = []string{"ls", "grep", "tar", "find", "cp", "ssh", "curl", "sed", "chmod", "ps", "du", "sort", "wc", "xargs", "date", "gzip"}

var corpus struct {
	once  sync.Once
	texts []string
	err   error
}

// manChunks returns up to n chunks, in the pipeline's order, of the
// installed man pages of benchCommands.
func manChunks(b *testing.B, n int) []string {
	b.Helper()
	corpus.once.Do(func() {
		_, corpus.err = pages.Run(context.Background(), pages.Options{Commands: benchCommands}, func(r pages.Result) error {
			for _, c := range r.Chunks {
				corpus.texts = append(corpus.texts, c.Text)
			}
			return nil
		})
	})
	if corpus.err != nil {
		b.Fatal(corpus.err)
	}
	if len(corpus.texts) < n {
		b.Fatalf("only %d chunks from the man pages of %v (run `make test-deps`)", len(corpus.texts), benchCommands)
	}
	return corpus.texts[:n]
}

func benchModelDir(b *testing.B) string {
	dir := os.Getenv("CMDAI_TEST_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".tools", "model", embed.ModelName)
	}
	if _, err := embed.Verify(dir, ""); err != nil {
		b.Fatalf("%v (run `make model`)", err)
	}
	return dir
}

func ortLibDir(b *testing.B) string {
	d := embed.FindORTLibDir(os.Getenv)
	if d == "" {
		b.Fatal("libonnxruntime.so not found: run `make tools`")
	}
	return d
}

// peakRSS reports the process's peak resident set (VmHWM) in MiB.
func peakRSS(b *testing.B) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			b.ReportMetric(kb/1024, "peakRSS-MiB")
		}
	}
}

// BenchmarkEmbed: sentences per second through our embedder (tokenize,
// run, pool, normalise, length-sorted batches) for each backend, variant
// and batch size. Names: backend-variant-bBATCH.
func BenchmarkEmbed(b *testing.B) {
	configs := []struct {
		backend, variant string
		batch, n         int
	}{
		{embed.BackendORT, embed.VariantFP32, 1, 256},
		{embed.BackendORT, embed.VariantFP32, 2, 256},
		{embed.BackendORT, embed.VariantFP32, 4, 256},
		{embed.BackendORT, embed.VariantFP32, 8, 256},
		{embed.BackendORT, embed.VariantFP32, 32, 256},
		{embed.BackendORT, embed.VariantInt8, 1, 256},
		{embed.BackendORT, embed.VariantInt8, 8, 256},
		{embed.BackendORT, embed.VariantInt8, 32, 256},
		{embed.BackendGo, embed.VariantFP32, 8, 16}, // ~2 texts/s: a small sample
	}
	for _, c := range configs {
		b.Run(c.backend+"-"+c.variant+"-b"+strconv.Itoa(c.batch), func(b *testing.B) {
			texts := manChunks(b, c.n)
			e, err := embed.Open(context.Background(), embed.Options{
				Dir: benchModelDir(b), Backend: c.backend, Variant: c.variant, BatchSize: c.batch,
			})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Embed(context.Background(), texts[:4]); err != nil { // warm up
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "sentences/s")
			peakRSS(b)
		})
	}
}

// BenchmarkModelLoad: from nothing to the first vector (verify the files'
// sha256s, start the backend, load the graph, embed one text).
func BenchmarkModelLoad(b *testing.B) {
	for _, c := range []struct{ backend, variant string }{
		{embed.BackendORT, embed.VariantFP32}, {embed.BackendORT, embed.VariantInt8}, {embed.BackendGo, embed.VariantFP32},
	} {
		b.Run(c.backend+"-"+c.variant, func(b *testing.B) {
			dir := benchModelDir(b)
			for i := 0; i < b.N; i++ {
				e, err := embed.Open(context.Background(), embed.Options{Dir: dir, Backend: c.backend, Variant: c.variant})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.Embed(context.Background(), []string{"list files"}); err != nil {
					b.Fatal(err)
				}
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/load")
			peakRSS(b)
		})
	}
}

// BenchmarkVersusBareORT runs our embedder and a bare ONNX Runtime session
// (same library, same model file, same threads, the same length-sorted
// batches of pre-tokenised inputs, no pooling) over the same chunks,
// alternating rounds in one process, and reports our throughput as a
// fraction of the bare one. The goal is >= 0.85.
//
// With CMDAI_BENCH_INIT_CHUNKS=N, init-int8-t1 does the same over every
// Nth chunk of this whole machine as `index init` embeds them (default
// prose budget, builder.EmbedText's heads) with one thread, as each of
// init's embedders runs: what scripts/bench/bench-init-speed.sh sets
// beside init's own rate (issue #33).
func BenchmarkVersusBareORT(b *testing.B) {
	versus := func(b *testing.B, variant string, batch, threads int, texts []string) {
		dir, lib := benchModelDir(b), ortLibDir(b)
		batches := tokenizeBatches(b, dir, texts, batch)
		var ours, bare []float64
		rounds := max(3, b.N)
		for r := 0; r < rounds; r++ {
			ours = append(ours, oursRound(b, dir, lib, variant, batch, threads, texts))
			bare = append(bare, bareRound(b, dir, lib, variant, threads, batches))
		}
		o, p := median(ours), median(bare)
		b.ReportMetric(o, "ours-sentences/s")
		b.ReportMetric(p, "bare-sentences/s")
		b.ReportMetric(o/p, "ratio")
	}
	for _, variant := range []string{embed.VariantFP32, embed.VariantInt8} {
		for _, batch := range []int{1, 8} {
			b.Run(variant+"-b"+strconv.Itoa(batch), func(b *testing.B) {
				versus(b, variant, batch, runtime.NumCPU(), manChunks(b, 256))
			})
		}
	}
	if every, _ := strconv.Atoi(os.Getenv("CMDAI_BENCH_INIT_CHUNKS")); every > 0 {
		b.Run("init-int8-t1", func(b *testing.B) {
			texts := initChunks(b, every)
			b.ReportMetric(float64(len(texts)), "chunks")
			versus(b, embed.VariantInt8, embed.DefaultBatchSize, 1, texts)
		})
	}
}

// initChunks is every nth chunk of this machine's man pages, each as
// `index init` embeds it.
func initChunks(b *testing.B, n int) []string {
	var out []string
	i := 0
	_, err := pages.Run(context.Background(), pages.Options{ProseBudget: builder.DefaultProseBudget}, func(r pages.Result) error {
		for _, c := range r.Chunks {
			if i%n == 0 {
				out = append(out, builder.EmbedText(c, builder.DefaultEmbedTokens))
			}
			i++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func oursRound(b *testing.B, dir, lib, variant string, batch, threads int, texts []string) float64 {
	e, err := embed.Open(context.Background(), embed.Options{Dir: dir, Backend: embed.BackendORT, Variant: variant, BatchSize: batch, ORTLibDir: lib, Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Embed(context.Background(), texts[:4]); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := e.Embed(context.Background(), texts); err != nil {
		b.Fatal(err)
	}
	return float64(len(texts)) / time.Since(start).Seconds()
}

// tokenized is one padded batch: ids, mask and type ids, row-major.
type tokenized struct {
	rows, cols         int
	ids, mask, typeIDs []int64
}

func tokenizeBatches(b *testing.B, dir string, texts []string, batch int) []tokenized {
	tk, err := tokenizers.FromFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		b.Fatal(err)
	}
	defer tk.Close()
	enc := make([][]uint32, len(texts))
	for i, t := range texts {
		enc[i], _ = tk.Encode(t, true)
	}
	// Same order as our batcher: by text length.
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return len(texts[order[i]]) < len(texts[order[j]]) })
	var out []tokenized
	for start := 0; start < len(order); start += batch {
		idx := order[start:min(start+batch, len(order))]
		cols := 0
		for _, i := range idx {
			cols = max(cols, len(enc[i]))
		}
		t := tokenized{rows: len(idx), cols: cols, ids: make([]int64, len(idx)*cols), mask: make([]int64, len(idx)*cols), typeIDs: make([]int64, len(idx)*cols)}
		for r, i := range idx {
			for c, id := range enc[i] {
				t.ids[r*cols+c] = int64(id)
				t.mask[r*cols+c] = 1
			}
		}
		out = append(out, t)
	}
	return out
}

func bareRound(b *testing.B, dir, lib, variant string, threads int, batches []tokenized) float64 {
	ort.SetSharedLibraryPath(filepath.Join(lib, embed.ORTLibName))
	if err := ort.InitializeEnvironment(); err != nil {
		b.Fatal(err)
	}
	defer ort.DestroyEnvironment()
	opts, err := ort.NewSessionOptions()
	if err != nil {
		b.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(threads); err != nil {
		b.Fatal(err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		b.Fatal(err)
	}
	file := map[string]string{embed.VariantFP32: "model.onnx", embed.VariantInt8: "model_int8.onnx"}[variant]
	s, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, file),
		[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"last_hidden_state"}, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	run := func(t tokenized) {
		shape := ort.NewShape(int64(t.rows), int64(t.cols))
		var in []ort.Value
		for _, data := range [][]int64{t.ids, t.mask, t.typeIDs} {
			v, err := ort.NewTensor(shape, data)
			if err != nil {
				b.Fatal(err)
			}
			in = append(in, v)
		}
		out := []ort.Value{nil}
		if err := s.Run(in, out); err != nil {
			b.Fatal(err)
		}
		for _, v := range append(in, out[0]) {
			v.Destroy()
		}
	}
	run(batches[0]) // warm up, as ours is
	n := 0
	start := time.Now()
	for _, t := range batches {
		run(t)
		n += t.rows
	}
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkWorkers: W embedders working on shares of the same chunks at
// once, each with T intra-op threads (all in one ONNX Runtime session, as
// `index init` runs them), against one embedder with all the threads.
// Names: variant-wW-tT.
func BenchmarkWorkers(b *testing.B) {
	for _, c := range []struct {
		variant          string
		workers, threads int
	}{
		{embed.VariantFP32, 1, 2}, {embed.VariantFP32, 2, 1}, {embed.VariantInt8, 1, 2}, {embed.VariantInt8, 2, 1},
	} {
		b.Run(c.variant+"-w"+strconv.Itoa(c.workers)+"-t"+strconv.Itoa(c.threads), func(b *testing.B) {
			texts := manChunks(b, 256)
			var es []embed.Embedder
			for w := 0; w < c.workers; w++ {
				e, err := embed.Open(context.Background(), embed.Options{
					Dir: benchModelDir(b), Backend: embed.BackendORT, Variant: c.variant, Threads: c.threads,
				})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				if _, err := e.Embed(context.Background(), texts[:2]); err != nil {
					b.Fatal(err)
				}
				es = append(es, e)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				errs := make([]error, len(es))
				for w, e := range es {
					wg.Add(1)
					go func() {
						defer wg.Done()
						// Interleaved shares, so that each worker gets short and long chunks.
						var share []string
						for j := w; j < len(texts); j += len(es) {
							share = append(share, texts[j])
						}
						_, errs[w] = e.Embed(context.Background(), share)
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "sentences/s")
			peakRSS(b)
		})
	}
}
