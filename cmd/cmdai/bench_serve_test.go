package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/evaluate"
	"github.com/cmdai/cmdai/serve"
)

// BenchmarkServe measures a running `cmdai serve` (scripts/bench/bench-serve.sh
// starts one over CMDAI_HOME): over the requests of CMDAI_BENCH_QUERIES
// (eval JSON lines, at least 200), the round trip of a warm query through
// its socket, semantic, hybrid, fused and learned, p50/p95; the floor in the same run, a
// raw Chroma query of the same collection with the vector computed
// beforehand; then CMDAI_BENCH_CLIENTS clients (16) for
// CMDAI_BENCH_SECONDS (60) asking at once: errors, lost answers, p95.
// Run it with -benchtime=1x: one pass is the measurement.
func BenchmarkServe(b *testing.B) {
	file := os.Getenv("CMDAI_BENCH_QUERIES")
	if os.Getenv("CMDAI_HOME") == "" || file == "" {
		b.Fatal("set CMDAI_HOME (with a serve running) and CMDAI_BENCH_QUERIES (scripts/bench/bench-serve.sh does)")
	}
	qs, err := evaluate.ReadEvalQueries(file)
	if err != nil {
		b.Fatal(err)
	}
	var reqs []string
	seen := map[string]bool{}
	for _, q := range qs {
		if t := q.Text(); !seen[t] {
			seen[t] = true
			reqs = append(reqs, t)
		}
	}
	if len(reqs) < 200 {
		b.Fatalf("%d different requests in %s: want at least 200", len(reqs), file)
	}
	ctx := context.Background()
	socket, err := config.ServeSocket(os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	c, err := serve.Dial(ctx, socket)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for _, mode := range []string{"semantic", "hybrid", "fused", "learned"} {
		d := make([]time.Duration, 0, len(reqs))
		for i, r := range reqs {
			t0 := time.Now()
			res, err := c.Query(ctx, answerlayer.QueryRequest{Request: r, K: 5, Mode: mode})
			if err != nil || len(res.Commands) == 0 {
				b.Fatalf("%s %q: %v (%d commands)", mode, r, err, len(res.Commands))
			}
			if i >= 10 { // the first few warm up the caches
				d = append(d, time.Since(t0))
			}
		}
		b.ReportMetric(percentile(d, 50), mode+"-p50-ms")
		b.ReportMetric(percentile(d, 95), mode+"-p95-ms")
	}
	floor := chromaFloor(b, ctx, c, reqs)
	b.ReportMetric(percentile(floor, 50), "floor-p50-ms")
	b.ReportMetric(percentile(floor, 95), "floor-p95-ms")
	concurrent(b, ctx, c, reqs)
	b.ReportMetric(0, "ns/op")
}

// chromaFloor times Chroma's nearest-neighbour query alone (100 chunks,
// as search asks), the vectors embedded before the clock starts.
func chromaFloor(b *testing.B, ctx context.Context, c *serve.Client, reqs []string) []time.Duration {
	h, err := c.Health(ctx)
	if err != nil {
		b.Fatal(err)
	}
	st, err := chroma.Connect(ctx, chroma.Config{URL: h.ChromaURL})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	coll, err := st.OpenCollection(ctx, h.Collection)
	if err != nil {
		b.Fatal(err)
	}
	f := cmdutil.NewFactory(cmdutil.SystemIO(), os.Getenv, "")
	e, err := f.Embedder(ctx, cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR"), Variant: index.ParseMeta(coll.Metadata()).ModelVariant}, 0)
	if err != nil {
		b.Fatal(err)
	}
	vecs, err := e.Embed(ctx, reqs)
	e.Close()
	if err != nil {
		b.Fatal(err)
	}
	d := make([]time.Duration, 0, len(reqs))
	for i, v := range vecs {
		t0 := time.Now()
		if _, err := coll.Query(ctx, v, 100); err != nil {
			b.Fatal(err)
		}
		if i >= 10 {
			d = append(d, time.Since(t0))
		}
	}
	return d
}

// concurrent runs the clients; an answer is lost when it does not come
// back, or comes back for another request.
func concurrent(b *testing.B, ctx context.Context, c *serve.Client, reqs []string) {
	clients, seconds := envInt("CMDAI_BENCH_CLIENTS", 16), envInt("CMDAI_BENCH_SECONDS", 60)
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	var mu sync.Mutex
	var all []time.Duration
	var errs, lost, sent int
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []time.Duration
			var e, l, n int
			for i := w; time.Now().Before(end); i += clients {
				r := reqs[i%len(reqs)]
				mode := []string{"learned", "semantic", "hybrid"}[i%3]
				t0 := time.Now()
				res, err := c.Query(ctx, answerlayer.QueryRequest{Request: r, K: 5, Mode: mode})
				n++
				switch {
				case err != nil:
					e++
				case res.Request != r || len(res.Commands) == 0:
					l++
				default:
					mine = append(mine, time.Since(t0))
				}
			}
			mu.Lock()
			all, errs, lost, sent = append(all, mine...), errs+e, lost+l, sent+n
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	b.ReportMetric(float64(sent), "concurrent-queries")
	b.ReportMetric(float64(errs), "concurrent-errors")
	b.ReportMetric(float64(lost), "concurrent-lost")
	b.ReportMetric(percentile(all, 50), "concurrent-p50-ms")
	b.ReportMetric(percentile(all, 95), "concurrent-p95-ms")
	fmt.Fprintf(os.Stderr, "%d clients for %d s: %d queries, %d errors, %d lost\n", clients, seconds, sent, errs, lost)
}

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}
