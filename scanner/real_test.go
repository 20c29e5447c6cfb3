package scanner

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/internal/testmode"
)

// These tests look at this machine: its $PATH and its installed man pages.
// CI images are expected to have man pages, so missing ones fail with an
// install hint rather than skip.

func TestScanRealPath(t *testing.T) {
	testmode.Heavy(t, "this machine's commands")
	dirs := SplitPath(os.Getenv("PATH"))
	start := time.Now()
	cmds, problems, err := ScanPath(context.Background(), dirs, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d PATH directories, %d commands, %d problems in %v", len(dirs), len(cmds), len(problems), time.Since(start))
	for _, p := range problems {
		t.Logf("problem: %s: %s", p.Path, p.Err)
	}
	found := map[string]string{}
	for _, c := range cmds {
		found[c.Name] = c.Path
	}
	for _, name := range []string{"ls", "sh"} {
		if found[name] == "" {
			t.Errorf("%s not found on PATH=%s", name, os.Getenv("PATH"))
		}
	}
}

var (
	realOnce     sync.Once
	realIndex    *ManIndex
	realRoots    []string
	realProblems []Problem
	realErr      error
	realTime     time.Duration
)

// realManIndex indexes this machine's man path once per test binary.
func realManIndex(t testing.TB) *ManIndex {
	t.Helper()
	testmode.Heavy(t, "this machine's man pages")
	realOnce.Do(func() {
		start := time.Now()
		realRoots = ManPath(os.Getenv, SplitPath(os.Getenv("PATH")), "")
		realIndex, realProblems, realErr = BuildManIndex(context.Background(), realRoots, IndexOptions{})
		realTime = time.Since(start)
	})
	if realErr != nil {
		t.Fatalf("index man pages: %v", realErr)
	}
	if realIndex.Len() < 1000 {
		t.Fatalf("only %d man pages under %q; the real-page tests need a full set: %s", realIndex.Len(), realRoots, installHint)
	}
	return realIndex
}

func TestRealManIndex(t *testing.T) {
	ix := realManIndex(t)
	t.Logf("man path %q: %d pages indexed in %v, %d problems", realRoots, ix.Len(), realTime, len(realProblems))
	for _, p := range realProblems {
		t.Logf("problem: %s: %s", p.Path, p.Err)
	}
	mp := ix.Lookup("ls")
	if mp == nil {
		t.Fatalf("no page for ls: %s", installHint)
	}
	if mp.Section != "1" || !strings.HasPrefix(mp.Path, "/usr/share/man/man1/") {
		t.Errorf("Lookup(ls) = %+v, want section 1 under /usr/share/man/man1", *mp)
	}

	cmds, _, err := ScanPath(context.Background(), SplitPath(os.Getenv("PATH")), 0)
	if err != nil {
		t.Fatal(err)
	}
	Attach(cmds, ix)
	with := 0
	for _, c := range cmds {
		if c.Man != nil {
			with++
		}
	}
	t.Logf("%d of %d commands on PATH have a man page", with, len(cmds))
}

// TestReadAllRealPages reads every installed page. The only acceptable
// failures are pages that are broken on disk (dangling symlinks, .so
// stubs pointing at pages of packages not installed); they are logged and
// must stay rare.
func TestReadAllRealPages(t *testing.T) {
	ix := realManIndex(t)
	pages := ix.All()
	start := time.Now()
	var bytesRead atomic.Int64
	errs := make([]error, len(pages))
	parallelFor(len(pages), func(i int) {
		src, _, err := ReadPage(pages[i].Path, DefaultMaxPageBytes)
		errs[i] = err
		bytesRead.Add(int64(len(src)))
	})
	failed := 0
	formats := map[string]int{}
	for i, err := range errs {
		formats[pages[i].Compression]++
		if err != nil {
			failed++
			t.Logf("unreadable: %v", err)
		}
	}
	el := time.Since(start)
	t.Logf("read %d pages (%v by compression), %.1f MiB decompressed, in %v (%.0f pages/s); %d unreadable",
		len(pages), formats, float64(bytesRead.Load())/(1<<20), el, float64(len(pages))/el.Seconds(), failed)
	if failed > len(pages)/100 {
		t.Errorf("%d of %d pages unreadable", failed, len(pages))
	}
}

// parallelFor runs f(0..n-1) on one goroutine per CPU.
func parallelFor(n int, f func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

func BenchmarkScanPath(b *testing.B) {
	dirs := SplitPath(os.Getenv("PATH"))
	for b.Loop() {
		if _, _, err := ScanPath(context.Background(), dirs, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildManIndex(b *testing.B) {
	roots := ManPath(os.Getenv, SplitPath(os.Getenv("PATH")), "")
	for b.Loop() {
		if _, _, err := BuildManIndex(context.Background(), roots, IndexOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadAllPages reads and decompresses every installed page per
// iteration, on one goroutine per CPU.
func BenchmarkReadAllPages(b *testing.B) {
	pages := realManIndex(b).All()
	var n atomic.Int64
	for b.Loop() {
		parallelFor(len(pages), func(i int) {
			src, _, _ := ReadPage(pages[i].Path, DefaultMaxPageBytes)
			n.Add(int64(len(src)))
		})
	}
	b.ReportMetric(float64(len(pages)), "pages/op")
	b.SetBytes(n.Load() / int64(b.N))
}
