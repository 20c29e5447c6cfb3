package initcmd

import (
	"testing"

	"github.com/cmdai/cmdai/builder"
)

// TestWorkCountsEmbedding: the bar's work is pages plus chunks to embed,
// those projected from the pages parsed so far, exact once all are; it
// reaches its total only when the last chunk is embedded.
func TestWorkCountsEmbedding(t *testing.T) {
	for _, tc := range []struct {
		p           builder.Progress
		done, total int
	}{
		// a quarter of the pages, 50 chunks queued: 200 projected
		{builder.Progress{Pages: 25, TotalPages: 100, ToEmbed: 50, Embedded: 10}, 35, 300},
		// every page through: the chunks queued are all there is
		{builder.Progress{Pages: 100, TotalPages: 100, ToEmbed: 180, Embedded: 90}, 190, 280},
		{builder.Progress{Pages: 100, TotalPages: 100, ToEmbed: 180, Embedded: 180}, 280, 280},
		// a re-run from the cache: pages only
		{builder.Progress{Pages: 40, TotalPages: 100}, 40, 100},
	} {
		done, total := work(tc.p)
		if done != tc.done || total != tc.total {
			t.Errorf("work(%+v) = %d of %d, want %d of %d", tc.p, done, total, tc.done, tc.total)
		}
	}
}
