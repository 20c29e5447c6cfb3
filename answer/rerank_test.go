package answer

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/embed"
)

// A prefetched reranker is handed to the one who asks and closed by them;
// one nobody asked for (a degraded answer) is closed by the cleanup, and
// no source means no reranker.
func TestPrefetchHandsOverOrCloses(t *testing.T) {
	var opened, closed atomic.Int32
	src := func(context.Context) (embed.Embedder, func(), error) {
		opened.Add(1)
		return nil, func() { closed.Add(1) }, nil
	}
	got, cleanup := prefetch(context.Background(), src)
	_, closeR, err := got(context.Background())
	if err != nil || closeR == nil {
		t.Fatalf("handed over: %v, closer %v", err, closeR != nil)
	}
	cleanup()
	time.Sleep(20 * time.Millisecond)
	if closed.Load() != 0 {
		t.Error("the cleanup closed a reranker it had handed over")
	}
	closeR()

	_, cleanup = prefetch(context.Background(), src)
	cleanup()
	deadline := time.Now().Add(2 * time.Second)
	for closed.Load() != 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if opened.Load() != 2 || closed.Load() != 2 {
		t.Errorf("opened %d, closed %d: want the unused one closed too", opened.Load(), closed.Load())
	}

	if got, cleanup := prefetch(context.Background(), nil); got != nil {
		t.Error("no source: want no reranker")
	} else {
		cleanup()
	}
}
