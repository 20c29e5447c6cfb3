package index

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMetaRoundTrip(t *testing.T) {
	m := Meta{Model: "all-MiniLM-L6-v2", Dims: 384, ModelSHA256: "abc", ModelVariant: "int8", ToolVersion: "v1",
		SchemaVersion: SchemaVersion, Distro: "debian-12", OS: "linux", BuiltAt: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC),
		Complete: true, Commands: 900, Chunks: 12000, ProseBudget: 512,
		Skipped: map[string]string{"broken": "0123abcd", "empty": "4567ef01"}}
	md := m.Map()
	// Chroma hands numbers back as float64 or int64 after JSON
	md[metaDims] = float64(384)
	md[metaCommands] = int64(900)
	if got := ParseMeta(md); !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
}

func TestMetaKeepsFailures(t *testing.T) {
	m := Meta{Model: "all-MiniLM-L6-v2", Complete: true,
		Skipped: map[string]string{"broken": "0123abcd", "twodesc": "4567ef01"},
		Failed: map[string]string{
			"broken":  "parse: not a man page (no roff requests), a=b",
			"twodesc": `panic: runtime error: slice bounds out of range [3:1] (at manparse.(*chunker).prose chunk.go:204, "x")`,
		}}
	md := m.Map()
	for k, v := range md {
		switch v.(type) {
		case string, int, bool:
		default:
			t.Errorf("metadata %s is a %T: Chroma takes scalars only", k, v)
		}
	}
	if got := ParseMeta(md); !reflect.DeepEqual(got.Failed, m.Failed) || !reflect.DeepEqual(got.Skipped, m.Skipped) {
		t.Errorf("round trip: failed %q, skipped %q", got.Failed, got.Skipped)
	}
	// a collection built before failures were kept still reads
	delete(md, metaFailed)
	if got := ParseMeta(md); got.Failed != nil || got.Skipped["broken"] != "0123abcd" || !got.Complete {
		t.Errorf("old metadata: %+v", got)
	}

	long := FailureText("read: \x1b[31mred\x1b[0m\n" + strings.Repeat("é", 400))
	if strings.ContainsAny(long, "\x1b\n") || len(long) > maxFailureText+3 || !strings.HasSuffix(long, "é...") {
		t.Errorf("FailureText: %q", long)
	}
}
