package manparse_test

import (
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
)

// BenchmarkParseAllPages reads, decompresses and parses every man page on
// the machine on all CPUs, as `cmdai index` does. Reported: pages/s and
// the wall time for the whole set (s/set).
//
//	go test ./manparse -run '^$' -bench ParseAllPages -benchtime 3x
func BenchmarkParseAllPages(b *testing.B) {
	pages := installedPages(b)
	var failed atomic.Int64
	b.ResetTimer()
	start := time.Now()
	for n := 0; n < b.N; n++ {
		parseAll(pages, runtime.NumCPU(), &failed)
	}
	wall := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(len(pages))/wall.Seconds(), "pages/s")
	b.ReportMetric(wall.Seconds(), "s/set")
	b.ReportMetric(float64(failed.Load())/float64(b.N), "failed/set")
}

func parseAll(pages []scanner.ManPage, workers int, failed *atomic.Int64) {
	var wg sync.WaitGroup
	next := make(chan scanner.ManPage, 64)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for mp := range next {
				src, _, err := scanner.ReadPage(mp.Path, 16<<20)
				if err == nil {
					_, err = manparse.Parse(src)
				}
				if err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	for _, mp := range pages {
		next <- mp
	}
	close(next)
	wg.Wait()
}

// BenchmarkVersusMan times, in one run over the same 100 pages, our
// read+parse and `man -l -P cat` (groff's rendering, the per-page cost of
// shelling out to man), single-threaded both, and reports the ratio.
//
//	go test ./manparse -run '^$' -bench VersusMan -benchtime 1x
func BenchmarkVersusMan(b *testing.B) {
	if _, err := exec.LookPath("man"); err != nil {
		b.Fatalf("man not found: %s", installHint)
	}
	all := installedPages(b)
	var sample []scanner.ManPage
	for i := 0; i < len(all) && len(sample) < 100; i += len(all) / 100 {
		sample = append(sample, all[i])
	}
	b.ResetTimer()
	var ours, theirs time.Duration
	for n := 0; n < b.N; n++ {
		// interleave the two so that machine noise hits both alike
		for _, mp := range sample {
			t := time.Now()
			src, _, err := scanner.ReadPage(mp.Path, 16<<20)
			if err == nil {
				_, _ = manparse.Parse(src)
			}
			ours += time.Since(t)

			t = time.Now()
			if _, err := renderWithMan(mp.Path); err != nil {
				b.Logf("man -P cat %s: %v", mp.Path, err)
			}
			theirs += time.Since(t)
		}
	}
	per := float64(b.N * len(sample))
	b.ReportMetric(ours.Seconds()*1e3/per, "ms/page-cmdai")
	b.ReportMetric(theirs.Seconds()*1e3/per, "ms/page-man")
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "speedup")
}
