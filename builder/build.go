package builder

import (
	"context"
	"errors"
	"time"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/embed/embcache"
	"github.com/cmdai/cmdai/index"
)

// DefaultProseBudget is the word pieces of prose embedded per man page
// besides its summary, options and examples (manparse.Budget): most pages
// have less and are kept whole, while the longest ones stop weighing on
// the build time. BENCHMARKS.md measures both sides of it.
const DefaultProseBudget = 512

// DefaultEmbedTokens is how much of each option, example and section
// chunk is embedded (Options.EmbedTokens): its first 128 word pieces
// (estimated). Embedding is nearly all of a first init's time, and one
// chunk in seven is longer; their heads cut the word pieces embedded by
// about 11 % with retrieval on the train requests unchanged (25 better,
// 22 worse of 965; 96 pieces cut more but lost 33 against 25 won).
// Summaries are embedded whole. BENCHMARKS.md (issue #33).
const DefaultEmbedTokens = 128

// Options configure Build.
type Options struct {
	Pages pages.Options
	// Embedders run in parallel, one goroutine each; all must use the
	// same model. At least one.
	Embedders []embed.Embedder
	// Cache, when set, serves vectors of texts embedded before.
	Cache *embcache.Cache
	// Collection is the collection's name (distro.Info.CollectionName).
	Collection  string
	ToolVersion string
	// Force builds a new index from scratch, aside, and swaps it in once
	// complete; otherwise records already there with the same text and
	// fingerprint are kept as they are.
	Force bool
	// EmbedTokens bounds what is embedded of each option, example and
	// section chunk of a page: its head of so many word pieces
	// (manparse.Head), while the record keeps its whole text for the
	// keyword channels and for display. 0 embeds whole chunks. Summaries
	// and users' docs are embedded whole.
	EmbedTokens int
	// WriteBatch bounds each upsert (and the server's limit bounds it too);
	// 0 means 256.
	WriteBatch int
	// Docs are users' command docs and hints, indexed with the pages: all
	// by a whole-machine build, those of the named commands by one
	// restricted to Pages.Commands.
	Docs []customdocs.Doc
	// Progress is called after each man page is through the diff stage
	// and after each batch of chunks is embedded, one call at a time.
	Progress func(Progress)
	Now      func() time.Time
}

// Progress is a snapshot of a running build. ToEmbed (man-page chunks
// handed to the embedders so far) and Embedded (those embedded) make the
// embedding work visible as it goes: with Pages and TotalPages, what an
// estimate of the time left needs.
type Progress struct {
	Pages, TotalPages        int
	Chunks, Embedded, Reused int
	ToEmbed                  int
	Written                  int
}

// Failure is one page that could not be indexed.
type Failure struct {
	Command string `json:"command"`
	Page    string `json:"man_page,omitempty"`
	Error   string `json:"error"`
}

// Summary is what a build did.
type Summary struct {
	Collection string `json:"collection"`
	Distro     string `json:"distro"`
	Model      string `json:"model"`
	Variant    string `json:"model_variant"`
	Backend    string `json:"backend"`
	Commands   int    `json:"commands_count"`
	Aliases    int    `json:"aliases_count"`
	// Subcommands counts the subcommand pages indexed (git-commit(1)):
	// not among Commands, which are $PATH's.
	Subcommands int `json:"subcommand_pages"`
	Chunks      int `json:"chunks_count"`
	Embedded    int `json:"embedded"`
	Cached      int `json:"from_cache"`
	Unchanged   int `json:"unchanged"`
	Written     int `json:"written"`
	Deleted     int `json:"deleted"`
	Failed      int `json:"failed_pages"`
	// DocsWritten and DocsDeleted count custom-doc and hint records.
	DocsWritten int `json:"docs_written"`
	DocsDeleted int `json:"docs_deleted"`
	// Failures lists the pages that failed, with why.
	Failures []Failure `json:"failures,omitempty"`
	// Cut lists the pages indexed only in part, with why
	// (pages.Result.Cut).
	Cut     []Failure `json:"cut_pages,omitempty"`
	Records int       `json:"records_count"`
	// Stats are the page stages' (the JSON name predates package pages).
	Stats pages.Stats `json:"pipeline"`
	// Stage times: scan+parse are the page stages'; embed and write are
	// the time their workers were busy (they overlap with parsing).
	ScanTime  pages.Duration `json:"scan_seconds"`
	ParseTime pages.Duration `json:"parse_seconds"`
	EmbedTime pages.Duration `json:"embed_seconds"`
	WriteTime pages.Duration `json:"write_seconds"`
	Total     pages.Duration `json:"total_seconds"`
}

// Build scans, parses, chunks, embeds and writes this machine's commands
// and the user's docs into the collection. Writes are upserts by stable
// id, so a build that was interrupted can simply be run again: it reuses
// what was written and the embedding cache. The collection is marked
// complete only at the end; a first build or a --force one writes aside
// and swaps the result in then (see openTarget).
func Build(ctx context.Context, store *chroma.Store, o Options) (Summary, error) {
	start := time.Now()
	if len(o.Embedders) == 0 {
		return Summary{}, errors.New("no embedder")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.WriteBatch <= 0 {
		o.WriteBatch = 256
	}
	info := o.Embedders[0].Info()
	sum := Summary{Collection: o.Collection, Distro: o.Pages.Distro.ID, Model: info.Model, Variant: info.Variant, Backend: info.Backend}
	meta := index.Meta{
		Model: info.Model, Dims: info.Dims, ModelSHA256: info.SHA256, ModelVariant: info.Variant,
		ToolVersion: o.ToolVersion, SchemaVersion: index.SchemaVersion, Distro: o.Pages.Distro.ID,
		OS: o.Pages.Distro.OS, BuiltAt: o.Now(), ProseBudget: o.Pages.ProseBudget,
	}
	t, err := openTarget(ctx, store, o, info, meta)
	if err != nil {
		return sum, err
	}
	o.Pages.HelpCommands = helpCommands(t.held, o.Pages.HelpCommands)
	only := setOf(o.Pages.Commands)
	// The user's docs: all of them on a whole-machine build; on a build of
	// some commands, those of these commands (the others stay as they are).
	docs := o.Docs
	if len(only) > 0 {
		docs = docsOf(o.Docs, only)
	}
	s := newStream(t.coll, t.held, only, &sum)
	s.pages, s.docs, s.distro, s.now = &o.Pages, docs, o.Pages.Distro, o.Now()
	s.cache, s.writeBatch, s.progress, s.embedTokens = o.Cache, o.WriteBatch, o.Progress, o.EmbedTokens
	s.embedders = func() ([]embed.Embedder, error) { return o.Embedders, nil }
	if err := s.run(ctx, len(o.Embedders)); err != nil {
		return sum, err
	}
	if err := t.finish(ctx, store, o.Collection, s, meta, len(docs)); err != nil {
		return sum, err
	}
	sum.ScanTime, sum.ParseTime = sum.Stats.ScanTime, sum.Stats.ParseTime
	sum.EmbedTime, sum.WriteTime = pages.Duration(s.embedBusy.Load()), pages.Duration(s.writeBusy.Load())
	sum.Total = pages.Duration(time.Since(start))
	return sum, nil
}

// setOf is names as a set; empty for none.
func setOf(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// helpCommands adds to also the commands whose records held come from
// their --help: the user's own init read them so (--help-fallback), and a
// later build (a refresh, an init without the flag) reads them the same
// way instead of dropping them for want of a man page.
func helpCommands(held map[string]stored, also map[string]bool) map[string]bool {
	out := map[string]bool{}
	for c := range also {
		out[c] = true
	}
	for _, st := range held {
		if st.source == index.SourceHelp && st.command != "" {
			out[st.command] = true
		}
	}
	return out
}
