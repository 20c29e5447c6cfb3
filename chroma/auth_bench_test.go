package chroma

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/index"
)

// BenchmarkRecordChecks measures what checking records costs a query:
// the same server and collection (2,000 records shaped like an index's:
// 384 dimensions, a page's metadata, a few hundred bytes of text) read
// through a store without an Authenticator (as before the checks) and
// one with cmdai's RecordKey, side by side in one run. query100 is
// Query's 100 nearest records (a semantic search's pool without a warm
// keyword index), docs is one command's records (/v1/docs, command_docs,
// explain), open100 is the HMAC check of 100 records alone (with a copy
// of each one's metadata map), verify2000 what status and doctor add.
//
//	go test ./chroma/ -run '^$' -bench RecordChecks -benchtime 200x -count 3
func BenchmarkRecordChecks(b *testing.B) {
	s, err := StartServer(context.Background(), ServerOptions{Bin: chromaBin(b), DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	key := index.NewRecordKey(filepath.Join(b.TempDir(), index.KeyFileName))
	checked, err := Connect(ctx, Config{URL: s.URL, Auth: key})
	if err != nil {
		b.Fatal(err)
	}
	plain, err := Connect(ctx, Config{URL: s.URL})
	if err != nil {
		b.Fatal(err)
	}
	c, err := checked.CreateCollection(ctx, "bench", map[string]any{"k": "v"})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	vec := func() []float32 {
		v := make([]float32, 384)
		for i := range v {
			v[i] = rng.Float32() - 0.5
		}
		return v
	}
	var recs []Record
	for i := 0; i < 2000; i++ {
		cmd := fmt.Sprintf("cmd%03d", i/20)
		md := index.Metadata{Command: cmd, Kind: index.KindOption, Section: "OPTIONS", Option: fmt.Sprintf("--opt%d", i%20), Source: index.SourceMan,
			Distro: "debian-12", OS: "linux", IndexedAt: time.Unix(1_800_000_000, 0), ContentHash: strings.Repeat("ab", 32), Fingerprint: "0123456789abcdef",
			Description: "does things to files", ManSection: "1", InstalledPath: "/usr/bin/" + cmd, ManPage: "/usr/share/man/man1/" + cmd + ".1.gz",
			Package: "pkg", PackageVersion: "1.0-1"}
		recs = append(recs, Record{ID: fmt.Sprintf("%s.1#OPTIONS#--opt%d", cmd, i%20), Document: strings.Repeat("option text of a man page ", 24), Metadata: md.ToChroma(), Embedding: vec()})
	}
	if err := c.Upsert(ctx, recs); err != nil {
		b.Fatal(err)
	}
	q := vec()
	plainColl, err := plain.OpenCollection(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	checkedColl, err := checked.OpenCollection(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	// each iteration asks both, one after the other, so that the load of
	// a shared machine falls on both alike
	sideBySide := func(b *testing.B, ask func(c *Collection) int, want int) {
		var times [2]time.Duration
		for i := 0; i < b.N; i++ {
			for j, c := range []*Collection{plainColl, checkedColl} {
				start := time.Now()
				if n := ask(c); n != want {
					b.Fatalf("%d records, want %d", n, want)
				}
				times[j] += time.Since(start)
			}
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
		b.ReportMetric(ms(times[0]), "ms-unchecked/op")
		b.ReportMetric(ms(times[1]), "ms-checked/op")
		b.ReportMetric(float64(times[1])/float64(times[0]), "checked/unchecked")
	}
	b.Run("query100", func(b *testing.B) {
		sideBySide(b, func(c *Collection) int {
			hits, err := c.Query(ctx, q, 100)
			if err != nil {
				b.Fatal(err)
			}
			return len(hits)
		}, 100)
	})
	b.Run("docs", func(b *testing.B) {
		sideBySide(b, func(c *Collection) int {
			recs, err := c.All(ctx, Include{Documents: true, Where: map[string]string{"command": "cmd042"}})
			if err != nil {
				b.Fatal(err)
			}
			return len(recs)
		}, 20)
	})
	// what `index status` and doctor add: every record read and checked
	b.Run("verify2000", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			all, err := c.Unchecked().All(ctx, Include{Documents: true})
			if err != nil || len(all) != 2000 {
				b.Fatalf("%d, %v", len(all), err)
			}
			for _, r := range all {
				if err := key.Check(r.ID, r.Document, nil, r.Metadata); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	raw, err := c.Unchecked().Get(ctx, idsOf(recs[:100]))
	if err != nil || len(raw) != 100 {
		b.Fatalf("%d, %v", len(raw), err)
	}
	b.Run("open100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, r := range raw {
				md := make(map[string]any, len(r.Metadata))
				for k, v := range r.Metadata {
					md[k] = v
				}
				if err := key.Open(r.ID, r.Document, nil, md); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func idsOf(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}
