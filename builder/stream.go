package builder

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embcache"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
)

// unit is what a source hands the diff stage: one command's or one doc's
// records, or (tick set) the mark that the first Pages of TotalPages man
// pages are through.
type unit struct {
	recs []index.Record
	doc  bool
	tick *Progress
}

// batch is records on their way to the embedders and the writer; doc
// marks users' docs, which the summary counts apart. texts, on its way to
// the embedders, is what is embedded of each record (EmbedText): the
// cache knows vectors by it.
type batch struct {
	recs  []chroma.Record
	texts []string
	doc   bool
}

// stream is one run of the stages into one collection: the sources (the
// page stages, the user's docs), then diff, embed and write, joined by
// bounded channels on one errgroup.
type stream struct {
	coll *chroma.Collection
	held map[string]stored
	// only restricts the run to these commands (all when empty): the
	// records of others are neither written nor deleted.
	only map[string]bool

	pages  *pages.Options // nil: no page source
	docs   []customdocs.Doc
	distro distro.Info
	now    time.Time // indexed_at of doc records

	cache *embcache.Cache
	// embedders is called once, when the first batch needs embedding: a
	// run with nothing to embed loads no model.
	embedders func() ([]embed.Embedder, error)
	// embedTokens bounds what is embedded of a page's chunk (EmbedText);
	// 0 embeds the whole text.
	embedTokens int
	writeBatch  int
	progress    func(Progress)

	// Each counter has one writer: the page source, the diff stage or
	// (atomics) the embedders and the writer.
	sum             *Summary
	seen            map[string]bool
	skipped, failed map[string]string // command -> fingerprint, why
	embedded        atomic.Int64
	cached, written atomic.Int64
	embedBusy       atomic.Int64
	writeBusy       atomic.Int64

	// ticked is the diff stage's part of the progress, as of its last
	// page; progressMu makes one call of progress at a time, from the
	// diff stage or an embedder.
	progressMu sync.Mutex
	ticked     Progress
	toEmbed    int // the diff stage's
}

func newStream(coll *chroma.Collection, held map[string]stored, only map[string]bool, sum *Summary) *stream {
	return &stream{coll: coll, held: held, only: only, sum: sum, writeBatch: 256,
		seen: map[string]bool{}, skipped: map[string]string{}, failed: map[string]string{}}
}

// run runs the stages to the end, with embedBuffer batches waiting for
// the embedders at most, and sets the summary's counts.
func (s *stream) run(ctx context.Context, embedBuffer int) error {
	parsed := make(chan unit, 16)
	toEmbed := make(chan batch, 2*max(embedBuffer, 1))
	toWrite := make(chan batch, 4)
	g, gctx := errgroup.WithContext(ctx)
	var sources sync.WaitGroup
	sources.Add(2)
	g.Go(func() error {
		defer sources.Done()
		return s.scanAndParse(gctx, parsed)
	})
	g.Go(func() error {
		defer sources.Done()
		return s.readDocs(gctx, parsed)
	})
	g.Go(func() error {
		sources.Wait()
		close(parsed)
		return nil
	})
	g.Go(func() error {
		defer close(toEmbed)
		return s.diff(gctx, parsed, toEmbed, toWrite)
	})
	g.Go(func() error { return s.embed(gctx, g, toEmbed, toWrite) })
	g.Go(func() error { return s.write(gctx, toWrite) })
	err := g.Wait()
	s.sum.Embedded, s.sum.Cached, s.sum.Written = int(s.embedded.Load()), int(s.cached.Load()), int(s.written.Load())
	return err
}

// send hands v on, unless the run is cancelled first.
func send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// scanAndParse is the page source: scan, parse and chunk (package pages),
// each command's records handed on as one unit, in order.
func (s *stream) scanAndParse(ctx context.Context, out chan<- unit) error {
	if s.pages == nil {
		return nil
	}
	popts := *s.pages
	if s.progress != nil {
		popts.Progress = func(done, total int) {
			// a cancelled run fails at the next emit
			_ = send(ctx, out, unit{tick: &Progress{Pages: done, TotalPages: total}})
		}
	}
	st, err := pages.Run(ctx, popts, func(r pages.Result) error {
		if !s.note(r) {
			return nil
		}
		return send(ctx, out, unit{recs: r.Chunks})
	})
	s.sum.Stats = st
	return err
}

// note keeps what the summary and the collection's metadata say of one
// command's result, and says whether it has records to hand on.
func (s *stream) note(r pages.Result) bool {
	switch r.Status {
	case pages.StatusAlias:
		if r.Parent == "" {
			s.sum.Aliases++
		}
		return false
	case pages.StatusFailed:
		s.sum.Failed++
		s.sum.Failures = append(s.sum.Failures, Failure{Command: r.Command, Page: r.ManPage, Error: r.Error})
		s.failed[r.Command] = index.FailureText(r.Error)
	}
	if r.Cut != "" {
		s.sum.Cut = append(s.sum.Cut, Failure{Command: r.Command, Page: r.ManPage, Error: r.Cut})
	}
	if len(r.Chunks) == 0 {
		if r.Fingerprint != "" {
			s.skipped[r.Command] = r.Fingerprint
		}
		return false
	}
	if r.Parent != "" {
		s.sum.Subcommands++
	} else {
		s.sum.Commands++
	}
	return true
}

// readDocs is the docs source: each of the user's command docs and hints
// as one unit.
func (s *stream) readDocs(ctx context.Context, out chan<- unit) error {
	for _, d := range s.docs {
		if err := send(ctx, out, unit{recs: docRecords([]customdocs.Doc{d}, s.distro, s.now), doc: true}); err != nil {
			return err
		}
	}
	return nil
}

// diff is the stage between the sources and the embedders: records the
// collection holds with the same text and fingerprint are left alone,
// those the cache has a vector for go straight to the writer, the others
// to the embedders. It also reports progress, once per man page.
func (s *stream) diff(ctx context.Context, in <-chan unit, toEmbed, toWrite chan<- batch) error {
	for u := range in {
		if u.tick != nil {
			s.report(*u.tick)
			continue
		}
		need, ready := batch{doc: u.doc}, batch{doc: u.doc}
		for _, r := range u.recs {
			if !s.changed(r, u.doc) {
				continue
			}
			rec := toChroma(r)
			text := r.Text
			if !u.doc {
				text = EmbedText(r, s.embedTokens)
			}
			if s.cache != nil {
				if v, ok := s.cache.Get(text); ok {
					rec.Embedding = v
					ready.recs = append(ready.recs, rec)
					if !u.doc {
						s.cached.Add(1)
					}
					continue
				}
			}
			need.recs = append(need.recs, rec)
			need.texts = append(need.texts, text)
		}
		if !u.doc {
			s.toEmbed += len(need.recs)
		}
		if len(ready.recs) > 0 {
			if err := send(ctx, toWrite, ready); err != nil {
				return err
			}
		}
		if len(need.recs) > 0 {
			if err := send(ctx, toEmbed, need); err != nil {
				return err
			}
		}
	}
	return nil
}

// EmbedText is what a build embeds of a page's record: the head of
// tokens word pieces of an option, example or section chunk (all of it
// for tokens 0), a summary whole: the page's own words for what it does,
// which the ranking leans on most. (Users' docs, few and written to be
// read whole, are embedded whole.)
func EmbedText(r index.Record, tokens int) string {
	if tokens <= 0 || r.Metadata.Kind == index.KindSummary {
		return r.Text
	}
	if h := manparse.Head(r.Text, tokens); h != "" {
		return h
	}
	// a budget too small for the first word: an empty text's vector
	// would say nothing of the chunk
	return r.Text
}

// changed says whether r needs writing, and counts it: a page's chunk
// unless the collection holds it unchanged; a doc's unless the docs the
// run may touch (docInScope) hold it unchanged.
func (s *stream) changed(r index.Record, doc bool) bool {
	s.seen[r.ID] = true
	st, ok := s.held[r.ID]
	same := ok && st.key == keyOf(r.Metadata)
	if doc {
		if same && s.docInScope(st) {
			return false
		}
		s.sum.DocsWritten++
		return true
	}
	s.sum.Chunks++
	if same {
		s.sum.Unchanged++
		return false
	}
	return true
}

// docInScope says whether a held record is a doc this run owns: all docs
// on a whole-machine run; on a run of some commands, those commands'
// command docs (hints and other commands' docs stay as they are).
func (s *stream) docInScope(st stored) bool {
	if !st.source.IsDoc() {
		return false
	}
	return len(s.only) == 0 || (st.source == index.SourceCustom && s.only[st.command])
}

// report records the diff stage's counts as of page tick p and calls
// the progress function.
func (s *stream) report(p Progress) {
	s.progressMu.Lock()
	defer s.progressMu.Unlock()
	p.Chunks, p.ToEmbed = s.sum.Chunks, s.toEmbed
	p.Reused = s.sum.Unchanged // the cached part is added by reportLocked
	s.ticked = p
	s.reportLocked()
}

// reportEmbedded calls the progress function after a batch is embedded,
// once the first page is through (before, there is no total).
func (s *stream) reportEmbedded() {
	if s.progress == nil {
		return
	}
	s.progressMu.Lock()
	defer s.progressMu.Unlock()
	if s.ticked.TotalPages > 0 {
		s.reportLocked()
	}
}

func (s *stream) reportLocked() {
	p := s.ticked
	p.Reused += int(s.cached.Load())
	p.Embedded, p.Written = int(s.embedded.Load()), int(s.written.Load())
	s.progress(p)
}

// embed is the embedding stage: once a batch needs it, the embedders are
// opened and each runs in its own goroutine on g. It closes out when the
// diff stage, the last other sender, is done.
func (s *stream) embed(ctx context.Context, g *errgroup.Group, in <-chan batch, out chan<- batch) error {
	defer close(out)
	first, ok := <-in
	if !ok {
		return nil
	}
	list, err := s.embedders()
	if err != nil {
		drain(in)
		return err
	}
	// Adding workers to g while g.Wait runs is safe: this goroutine is
	// one of g's, so g's count is not zero.
	var workers sync.WaitGroup
	for i, e := range list {
		var start []batch
		if i == 0 {
			start = []batch{first}
		}
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			return s.embedWorker(ctx, e, start, in, out)
		})
	}
	workers.Wait()
	// what is left after a worker failed; the diff stage stops soon
	drain(in)
	return nil
}

// drain waits for the sender to close ch, dropping what comes.
func drain(ch <-chan batch) {
	for range ch {
	}
}

// embedWorker embeds the start batches, then those of in, with one
// embedder, and hands them to the writer.
func (s *stream) embedWorker(ctx context.Context, e embed.Embedder, start []batch, in <-chan batch, out chan<- batch) error {
	for _, b := range start {
		if err := s.embedBatch(ctx, e, b, out); err != nil {
			return err
		}
	}
	for b := range in {
		if err := s.embedBatch(ctx, e, b, out); err != nil {
			return err
		}
	}
	return nil
}

// embedBatch embeds one batch through the cache and hands it on.
func (s *stream) embedBatch(ctx context.Context, e embed.Embedder, b batch, out chan<- batch) error {
	texts := b.texts
	t0 := time.Now()
	vecs, err := e.Embed(ctx, texts)
	s.embedBusy.Add(int64(time.Since(t0)))
	if err != nil {
		return fmt.Errorf("embed %s: %w", b.recs[0].ID, err)
	}
	for i := range b.recs {
		b.recs[i].Embedding = vecs[i]
	}
	if s.cache != nil {
		if err := s.cache.Put(texts, vecs); err != nil {
			return fmt.Errorf("cache the vectors of %s: %w", b.recs[0].ID, err)
		}
	}
	if !b.doc {
		s.embedded.Add(int64(len(b.recs)))
		s.reportEmbedded()
	}
	return send(ctx, out, b)
}

// write is the last stage of the stream: upserts in batches of
// writeBatch records.
func (s *stream) write(ctx context.Context, in <-chan batch) error {
	var pending []chroma.Record
	var pendingPages int // the summary counts man-page records only
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		t0 := time.Now()
		err := s.coll.Upsert(ctx, pending)
		s.writeBusy.Add(int64(time.Since(t0)))
		s.written.Add(int64(pendingPages))
		n := len(pending)
		pending, pendingPages = pending[:0], 0
		if err != nil {
			return fmt.Errorf("write %d records: %w", n, err)
		}
		return nil
	}
	for b := range in {
		pending = append(pending, b.recs...)
		if !b.doc {
			pendingPages += len(b.recs)
		}
		if len(pending) >= s.writeBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// gone lists the held records this run's sources no longer give, among
// those it may touch: man-page records of the commands in only (all when
// empty), and docs in scope.
func (s *stream) gone() (pageIDs, docIDs []string) {
	for id, st := range s.held {
		switch {
		case s.seen[id]:
		case st.source.IsDoc():
			if s.docInScope(st) {
				docIDs = append(docIDs, id)
			}
		case len(s.only) == 0 || s.only[st.command]:
			pageIDs = append(pageIDs, id)
		}
	}
	return pageIDs, docIDs
}
