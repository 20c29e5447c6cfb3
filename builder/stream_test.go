package builder

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embcache"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
)

func rec(id, cmd string, src index.Source, hash string) index.Record {
	return index.Record{ID: id, Text: "text of " + id, Metadata: index.Metadata{Command: cmd, Source: src, ContentHash: hash, Fingerprint: "f"}}
}

func held(recs ...index.Record) map[string]stored {
	out := map[string]stored{}
	for _, r := range recs {
		out[r.ID] = stored{key: keyOf(r.Metadata), command: r.Metadata.Command, source: r.Metadata.Source}
	}
	return out
}

func ids(b []batch) (out []string) {
	for _, x := range b {
		for _, r := range x.recs {
			out = append(out, r.ID)
		}
	}
	sort.Strings(out)
	return out
}

// runDiff passes units through the diff stage and returns what it sent
// on to the embedders and to the writer.
func runDiff(t *testing.T, s *stream, units ...unit) (toEmbed, toWrite []batch) {
	t.Helper()
	in := make(chan unit, len(units))
	for _, u := range units {
		in <- u
	}
	close(in)
	e, w := make(chan batch, 100), make(chan batch, 100)
	if err := s.diff(context.Background(), in, e, w); err != nil {
		t.Fatal(err)
	}
	close(e)
	close(w)
	for b := range e {
		toEmbed = append(toEmbed, b)
	}
	for b := range w {
		toWrite = append(toWrite, b)
	}
	return toEmbed, toWrite
}

// The diff stage keeps what the collection holds unchanged, sends the
// rest to the embedders, and counts pages' chunks and docs apart.
func TestDiffSendsOnlyChangedRecords(t *testing.T) {
	lsName, lsOpt := rec("ls.1#NAME", "ls", index.SourceMan, "h1"), rec("ls.1#OPTIONS#-a", "ls", index.SourceMan, "h2")
	deploy := rec("custom:deploy#NAME", "deploy", index.SourceCustom, "d1")
	var sum Summary
	s := newStream(nil, held(lsName, lsOpt, deploy), map[string]bool{}, &sum)
	lsOptNow := lsOpt
	lsOptNow.Metadata.ContentHash = "h2-new"
	deployEx := rec("custom:deploy#EXAMPLES#1", "deploy", index.SourceCustom, "d2")
	var reported []Progress
	s.progress = func(p Progress) { reported = append(reported, p) }
	toEmbed, toWrite := runDiff(t, s,
		unit{recs: []index.Record{lsName, lsOptNow}},
		unit{tick: &Progress{Pages: 1, TotalPages: 1}},
		unit{recs: []index.Record{deploy, deployEx}, doc: true})
	if got, want := ids(toEmbed), []string{"custom:deploy#EXAMPLES#1", "ls.1#OPTIONS#-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("to embed %v, want %v", got, want)
	}
	if len(toWrite) != 0 {
		t.Errorf("to write without a cache: %v", ids(toWrite))
	}
	if sum.Chunks != 2 || sum.Unchanged != 1 || sum.DocsWritten != 1 {
		t.Errorf("chunks %d, unchanged %d, docs written %d; want 2, 1, 1", sum.Chunks, sum.Unchanged, sum.DocsWritten)
	}
	if want := []Progress{{Pages: 1, TotalPages: 1, Chunks: 2, Reused: 1, ToEmbed: 1}}; !reflect.DeepEqual(reported, want) {
		t.Errorf("progress %+v, want %+v", reported, want)
	}
}

// A run of some commands owns their pages' records and command docs
// only: it neither rewrites nor deletes hints or other commands' records.
func TestGoneOfAPartialRun(t *testing.T) {
	h := held(
		rec("ls.1#NAME", "ls", index.SourceMan, "h"), rec("ls.1#OPTIONS#-Z", "ls", index.SourceMan, "h"),
		rec("tar.1#NAME", "tar", index.SourceMan, "h"),
		rec("custom:ls#NAME", "ls", index.SourceCustom, "h"), rec("custom:ls#EXAMPLES#1", "ls", index.SourceCustom, "h"),
		rec("custom:deploy#NAME", "deploy", index.SourceCustom, "h"),
		rec("hint:big#HINT", "", index.SourceHint, "h"),
	)
	var sum Summary
	s := newStream(nil, h, map[string]bool{"ls": true}, &sum)
	s.seen["ls.1#NAME"], s.seen["custom:ls#NAME"] = true, true
	pages, docs := s.gone()
	sort.Strings(pages)
	sort.Strings(docs)
	if !reflect.DeepEqual(pages, []string{"ls.1#OPTIONS#-Z"}) || !reflect.DeepEqual(docs, []string{"custom:ls#EXAMPLES#1"}) {
		t.Errorf("partial run deletes pages %v, docs %v", pages, docs)
	}
	// a doc out of scope (only the named commands' docs flow in a
	// partial run) is never taken for one the run holds unchanged
	if !s.changed(rec("hint:big#HINT", "", index.SourceHint, "h"), true) {
		t.Error("a hint out of a partial run's scope counts as unchanged")
	}

	whole := newStream(nil, h, map[string]bool{}, &sum)
	whole.seen["ls.1#NAME"] = true
	pages, docs = whole.gone()
	if len(pages) != 2 || len(docs) != 4 {
		t.Errorf("whole-machine run deletes pages %v, docs %v; want 2 and 4", pages, docs)
	}
}

type fakeEmbedder struct {
	calls atomic.Int64
	fail  bool
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.fail {
		return nil, errors.New("model gone")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t))}
	}
	return out, nil
}
func (f *fakeEmbedder) Info() embed.Info { return embed.Info{Model: "fake"} }
func (f *fakeEmbedder) Close() error     { return nil }

// runEmbed passes batches through the embed stage and returns what it
// handed the writer.
func runEmbed(s *stream, batches ...batch) ([]batch, error) {
	in, out := make(chan batch), make(chan batch, 100)
	g, ctx := errgroup.WithContext(context.Background())
	g.Go(func() error {
		defer close(in)
		for _, b := range batches {
			if err := send(ctx, in, b); err != nil {
				return err
			}
		}
		return nil
	})
	g.Go(func() error { return s.embed(ctx, g, in, out) })
	err := g.Wait()
	var got []batch
	for b := range out {
		got = append(got, b)
	}
	return got, err
}

// Every embedder takes batches, docs' included; the embedders are
// opened only when a batch needs them; only pages' records are counted.
func TestEmbedStage(t *testing.T) {
	var sum Summary
	s := newStream(nil, nil, nil, &sum)
	opened := 0
	a, b := &fakeEmbedder{}, &fakeEmbedder{}
	s.embedders = func() ([]embed.Embedder, error) { opened++; return []embed.Embedder{a, b}, nil }
	if got, err := runEmbed(s); err != nil || len(got) != 0 || opened != 0 {
		t.Fatalf("nothing to embed: %d batches, err %v, embedders opened %d times", len(got), err, opened)
	}
	// progress after each page batch embedded, once a page is through
	var reported []Progress
	s.progress = func(p Progress) { reported = append(reported, p) }
	s.ticked = Progress{Pages: 1, TotalPages: 1, ToEmbed: 10}
	var in []batch
	for i := 0; i < 20; i++ {
		r := toChroma(rec("c"+string(rune('a'+i))+".1#NAME", "c", index.SourceMan, "h"))
		in = append(in, batch{recs: []chroma.Record{r}, texts: []string{r.Document}, doc: i%2 == 1})
	}
	got, err := runEmbed(s, in...)
	if err != nil || len(got) != 20 || opened != 1 {
		t.Fatalf("%d batches out of 20, err %v, opened %d times", len(got), err, opened)
	}
	for _, x := range got {
		if len(x.recs[0].Embedding) != 1 {
			t.Errorf("%s not embedded", x.recs[0].ID)
		}
	}
	if a.calls.Load() == 0 || b.calls.Load() == 0 || s.embedded.Load() != 10 {
		t.Errorf("calls %d and %d, %d counted; want both embedders used and 10 counted", a.calls.Load(), b.calls.Load(), s.embedded.Load())
	}
	if len(reported) != 10 || reported[9].Embedded != 10 || reported[9].ToEmbed != 10 {
		t.Errorf("progress after embedding: %+v; want 10 reports, the last 10 of 10 embedded", reported)
	}

	// a failing embedder fails the run and still closes the writer's channel
	s = newStream(nil, nil, nil, &sum)
	s.embedders = func() ([]embed.Embedder, error) { return []embed.Embedder{&fakeEmbedder{fail: true}}, nil }
	if _, err := runEmbed(s, in...); err == nil {
		t.Error("a failing embedder did not fail the run")
	}
}

// A record written before the owning package was kept (or before the
// package was upgraded) differs from the one a build makes now, so it is
// rewritten; a command no package owns keeps its key.
func TestKeyOfFollowsThePackage(t *testing.T) {
	old := index.Metadata{ContentHash: "h", Fingerprint: "f", Source: index.SourceMan, PageSource: "TAR"}
	now := old
	now.Package, now.PackageVersion = "tar", "1.34+dfsg-1.2"
	upgraded := now
	upgraded.PackageVersion = "1.35-1"
	if keyOf(old) == keyOf(now) || keyOf(now) == keyOf(upgraded) {
		t.Errorf("keys %q, %q, %q: want a new key with the package and with its version", keyOf(old), keyOf(now), keyOf(upgraded))
	}
	if keyOf(old) != "h/f" {
		t.Errorf("unowned command's key %q, want the key it always had", keyOf(old))
	}
}

// With embedTokens set, an option's head is what is embedded and what
// the cache knows, while its record keeps the whole text; a summary and
// a doc are embedded whole; each record gets the vector of its own text.
func TestDiffEmbedsHeads(t *testing.T) {
	long := strings.Repeat("Read all files under each directory, recursively. ", 20)
	opt := rec("grep.1#OPTIONS#-r", "grep", index.SourceMan, "h1")
	opt.Text, opt.Metadata.Kind = "grep(1) option -r\n"+long, index.KindOption
	cachedOpt := rec("grep.1#OPTIONS#-R", "grep", index.SourceMan, "h2")
	cachedOpt.Text, cachedOpt.Metadata.Kind = "grep(1) option -R\n"+long, index.KindOption
	summary := rec("grep.1#NAME", "grep", index.SourceMan, "h3")
	summary.Text, summary.Metadata.Kind = "grep(1) - print lines that match patterns\n"+long, index.KindSummary
	doc := rec("custom:deploy#NAME", "deploy", index.SourceCustom, "d1")
	doc.Text = "deploy - ship it\n" + long

	cache, err := embcache.OpenCache(t.TempDir(), "0123456789abcdef0123", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	head := manparse.Head(cachedOpt.Text, 32)
	if err := cache.Put([]string{head}, [][]float32{{42}}); err != nil {
		t.Fatal(err)
	}
	var sum Summary
	s := newStream(nil, nil, map[string]bool{}, &sum)
	s.cache, s.embedTokens = cache, 32
	toEmbed, toWrite := runDiff(t, s,
		unit{recs: []index.Record{opt, cachedOpt, summary}},
		unit{recs: []index.Record{doc}, doc: true})
	if len(toWrite) != 1 || len(toWrite[0].recs) != 1 || toWrite[0].recs[0].ID != cachedOpt.ID ||
		toWrite[0].recs[0].Embedding[0] != 42 || toWrite[0].recs[0].Document != cachedOpt.Text {
		t.Fatalf("from the cache by its head: %+v; want %s with vector 42 and its whole text", toWrite, cachedOpt.ID)
	}
	want := map[string]string{opt.ID: manparse.Head(opt.Text, 32), summary.ID: summary.Text, doc.ID: doc.Text}
	whole := map[string]string{opt.ID: opt.Text, summary.ID: summary.Text, doc.ID: doc.Text}
	n := 0
	for _, b := range toEmbed {
		if len(b.texts) != len(b.recs) {
			t.Fatalf("batch of %d records with %d texts", len(b.recs), len(b.texts))
		}
		for i, r := range b.recs {
			n++
			if b.texts[i] != want[r.ID] || r.Document != whole[r.ID] {
				t.Errorf("%s: embeds %d bytes of %d, keeps %d; want %d embedded, %d kept", r.ID, len(b.texts[i]), len(r.Document), len(r.Document), len(want[r.ID]), len(whole[r.ID]))
			}
		}
	}
	if n != 3 || len(want[opt.ID]) >= len(opt.Text) {
		t.Fatalf("%d records to embed, head %d of %d bytes; want 3 and a shorter head", n, len(want[opt.ID]), len(opt.Text))
	}

	// the embed stage gives each record the vector of its own text (the
	// fake's vector is the text's length) and caches it under that text
	s.embedders = func() ([]embed.Embedder, error) { return []embed.Embedder{&fakeEmbedder{}}, nil }
	got, err := runEmbed(s, toEmbed...)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range got {
		for _, r := range b.recs {
			if r.Embedding[0] != float32(len(want[r.ID])) {
				t.Errorf("%s got the vector of a %v-byte text, want its own (%d bytes)", r.ID, r.Embedding[0], len(want[r.ID]))
			}
			if v, ok := cache.Get(want[r.ID]); !ok || v[0] != float32(len(want[r.ID])) {
				t.Errorf("%s: not cached under the text embedded", r.ID)
			}
		}
	}
}

// EmbedText cuts an option to its head, never a summary, and never to
// nothing.
func TestEmbedText(t *testing.T) {
	long := "tar(1) option -x\n" + strings.Repeat("Extract files from an archive. ", 30)
	opt := index.Record{Text: long, Metadata: index.Metadata{Kind: index.KindOption}}
	sum := index.Record{Text: long, Metadata: index.Metadata{Kind: index.KindSummary}}
	if h := EmbedText(opt, 32); h != manparse.Head(long, 32) || len(h) >= len(long) {
		t.Errorf("option's head %q", h)
	}
	if EmbedText(sum, 32) != long || EmbedText(opt, 0) != long {
		t.Error("a summary, or a budget of 0, was cut")
	}
	if EmbedText(opt, 1) != long {
		t.Error("a budget below the first word gave an empty text to embed")
	}
}
