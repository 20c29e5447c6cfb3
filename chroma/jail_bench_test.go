package chroma

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkJail measures what the jail costs: two private servers over
// the same records (5,000 shaped like an index's), one jailed (its own
// network namespace, reached through its socket and lean.py's relay),
// one on a loopback port (CMDAI_CHROMA_NO_JAIL=1, as builds before ran
// it), side by side in one run. nearest200 is QueryNearest's ids and
// distances (serve's and a warm query's semantic half), query20 Query
// with text, metadata and vectors, all every record with its vector
// (export, status --verify, the vectors kept beside the keyword index).
//
//	go test ./chroma/ -run '^$' -bench Jail -benchtime 100x -count 3
func BenchmarkJail(b *testing.B) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	recs := make([]Record, 5000)
	for i := range recs {
		v := make([]float32, 384)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		recs[i] = Record{ID: fmt.Sprintf("cmd%d.1#opt%d", i/20, i), Document: fmt.Sprintf("-%c, --option-%d  does the thing number %d to the files named", 'a'+i%26, i, i),
			Embedding: unit(v...), Metadata: map[string]any{"command": fmt.Sprintf("cmd%d", i/20), "section": "OPTIONS", "kind": "option"}}
	}
	query := unit(recs[17].Embedding...)
	for _, mode := range []struct{ name, env string }{{"jailed", ""}, {"loopback", "1"}} {
		b.Setenv(NoJailEnv, mode.env)
		srv, err := StartServer(ctx, ServerOptions{Bin: chromaBin(b), DataDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Stop() })
		if srv.Isolation.Isolated() != (mode.env == "") {
			b.Fatalf("%s: %s", mode.name, srv.Isolation)
		}
		st, err := Connect(ctx, Config{URL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		c, err := st.CreateCollection(ctx, "cmdai_bench_jail", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Upsert(ctx, recs); err != nil {
			b.Fatal(err)
		}
		b.Run(mode.name+"/nearest200", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.QueryNearest(ctx, query, 200); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(mode.name+"/query20", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.Query(ctx, query, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(mode.name+"/all", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.All(ctx, Include{Documents: true, Embeddings: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
