package livedoc

import (
	"context"
	"os"
	"testing"

	"github.com/cmdai/cmdai/search"
)

// BenchmarkAnswerRealPages is the cost of one degraded answer read live
// from this machine's pages (tar and grep: two man pages listed, read,
// parsed and ranked): `go test -bench AnswerRealPages ./answer/livedoc`.
func BenchmarkAnswerRealPages(b *testing.B) {
	o := FromEnv(os.Getenv)
	req := search.Request{Query: "tar or grep: extract a gz archive, count matching lines", K: 5}
	for i := 0; i < b.N; i++ {
		a, _, ok, err := Answer(context.Background(), o, req)
		if err != nil || !ok || len(a.Commands) != 2 {
			b.Fatalf("%+v %v %v (needs tar and grep with their man pages)", a, ok, err)
		}
	}
}

// BenchmarkDocRealPage is one command's documentation read live (grep's
// man page): `go test -bench DocRealPage ./answer/livedoc`.
func BenchmarkDocRealPage(b *testing.B) {
	o := FromEnv(os.Getenv)
	for i := 0; i < b.N; i++ {
		if _, _, err := Doc(context.Background(), o, "grep"); err != nil {
			b.Fatal(err)
		}
	}
}
