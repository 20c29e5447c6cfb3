package buildcmd

import (
	"testing"

	"github.com/cmdai/cmdai/build"
)

// TestWorkCountsEmbedding: the bar's work is pages plus chunks to embed,
// those projected from the pages parsed so far, exact once all are; it
// reaches its total only when the last chunk is embedded.
func TestWorkCountsEmbedding(t *testing.T) {
	for _, tc := range []struct {
		p           build.Progress
		done, total int
	}{
		// a quarter of the pages, 50 chunks queued: 200 projected
		{build.Progress{Pages: 25, TotalPages: 100, ToEmbed: 50, Embedded: 10}, 35, 300},
		// every page through: the chunks queued are all there is
		{build.Progress{Pages: 100, TotalPages: 100, ToEmbed: 180, Embedded: 90}, 190, 280},
		{build.Progress{Pages: 100, TotalPages: 100, ToEmbed: 180, Embedded: 180}, 280, 280},
		// a re-run from the cache: pages only
		{build.Progress{Pages: 40, TotalPages: 100}, 40, 100},
	} {
		done, total := work(tc.p)
		if done != tc.done || total != tc.total {
			t.Errorf("work(%+v) = %d of %d, want %d of %d", tc.p, done, total, tc.done, tc.total)
		}
	}
}
