package main

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
)

// BenchmarkQueryWarm measures `index query` with the server up and the
// model loaded, as an assistant that keeps cmdai running sees it: the
// requests of testdata/requests.jsonl, in turn, against the index in
// CMDAI_HOME (scripts/bench/bench-index.sh builds one). It reports the p50 and
// p95 of the whole query and of its two parts, embedding the request and
// Chroma's nearest-neighbour search.
func BenchmarkQueryWarm(b *testing.B) {
	if os.Getenv("CMDAI_HOME") == "" {
		b.Fatal("set CMDAI_HOME to a cmdai home with an index (scripts/bench/bench-index.sh does)")
	}
	ctx := context.Background()
	f := cmdutil.NewFactory(cmdutil.SystemIO(), os.Getenv, "")
	info, conn, err := f.OpenDistroIndex(ctx, "", cmdutil.ChromaOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	coll, err := answerlayer.OpenIndex(ctx, conn.Store, info.CollectionName())
	if err != nil {
		b.Fatal(err)
	}
	meta := index.ParseMeta(coll.Metadata())
	e, err := f.Embedder(ctx, cmdutil.ModelOptions{Variant: meta.ModelVariant}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	requests := readRequests(b)
	var total, embedT, searchT []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := requests[i%len(requests)].Request
		t0 := time.Now()
		vecs, err := e.Embed(ctx, []string{r})
		t1 := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		hits, err := coll.Query(ctx, vecs[0], 100)
		if err != nil {
			b.Fatal(err)
		}
		if len(search.Group(hits, 5)) == 0 {
			b.Fatalf("no result for %q", r)
		}
		t2 := time.Now()
		embedT, searchT, total = append(embedT, t1.Sub(t0)), append(searchT, t2.Sub(t1)), append(total, t2.Sub(t0))
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"total", total}, {"embed", embedT}, {"search", searchT}} {
		b.ReportMetric(percentile(m.d, 50), m.name+"-p50-ms")
		b.ReportMetric(percentile(m.d, 95), m.name+"-p95-ms")
	}
	b.ReportMetric(0, "ns/op") // the percentiles say it better
}

func percentile(d []time.Duration, p int) float64 {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	i = min(max(i-1, 0), len(s)-1)
	return float64(s[i].Microseconds()) / 1000
}
