package search

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/shown"
)

// ErrUnknownCommand is Docs' answer for a command the index does not hold.
var ErrUnknownCommand = errors.New("unknown command")

// CommandDoc is one command's documentation as the index holds it: its
// details and every record of it, summary first, then options, examples
// and other sections, each in page order (their ids' order).
type CommandDoc struct {
	shown.CommandHit
	// AliasAsked is the name asked for when it is an alias of Command
	// (gunzip for gzip): the page is the command's.
	AliasAsked string `json:"alias_asked,omitempty"`
	// Records carry no Score: they answer no request.
	Records []shown.Match `json:"records"`
	// Degraded: Chroma could not be reached, and the records come from
	// the keyword index on disk or the command's page parsed live;
	// DegradedReason says which and why.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
}

// Docs reads one command's records from the index, by their metadata:
// the documentation an assistant asks for by name, without reading the
// man page again.
func (s Searcher) Docs(ctx context.Context, command string) (CommandDoc, error) {
	command = PageName(command)
	if command == "" {
		return CommandDoc{}, fmt.Errorf("no command named: give one, e.g. \"grep\"")
	}
	recs, err := s.Coll.All(ctx, chroma.Include{Documents: true, Where: index.WhereCommand(command)})
	if err != nil {
		return CommandDoc{}, fmt.Errorf("read the records of %s: %w", command, err)
	}
	alias := ""
	if len(recs) == 0 {
		if owner, err := s.aliasOwner(ctx, command); err != nil {
			return CommandDoc{}, err
		} else if owner != "" {
			alias = command
			if recs, err = s.Coll.All(ctx, chroma.Include{Documents: true, Where: index.WhereCommand(owner)}); err != nil {
				return CommandDoc{}, fmt.Errorf("read the records of %s: %w", owner, err)
			}
		}
	}
	if len(recs) == 0 {
		return CommandDoc{}, NotIndexedError(command)
	}
	return DocOf(recs, alias), nil
}

// NotIndexedError is what Docs answers for a command the index does not
// hold (NotIndexed tells it).
func NotIndexedError(command string) error {
	return fmt.Errorf("%w %q: %s (search by what it does with search_commands, or add it with `cmdai index init --command %s`)", ErrUnknownCommand, command, notIndexedText, command)
}

const notIndexedText = "it is not in the index"

// NotIndexed tells an error of Docs that says only that the index does
// not hold the command (not why: an answer from disk may know that it
// is installed without a page), which a door may say better from what
// is installed where it runs (answer.Unknown).
func NotIndexed(err error) bool {
	return errors.Is(err, ErrUnknownCommand) && strings.Contains(err.Error(), notIndexedText+" (search by what it does")
}

// DocOf is the documentation of the command whose records recs are (at
// least one, in any order; alias: the name asked for when it is an
// alias): the one shape Docs, DocsFromKeywords and a page parsed live
// give, so that an answer from disk reads like one from the index.
func DocOf(recs []chroma.Record, alias string) CommandDoc {
	recs = append([]chroma.Record(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool {
		ki, kj := kindOrder[metaOf(recs[i]).Kind], kindOrder[metaOf(recs[j]).Kind]
		if ki != kj {
			return ki < kj
		}
		return index.LessID(recs[i].ID, recs[j].ID)
	})
	doc := CommandDoc{CommandHit: *commandOf(metaOf(recs[0])), AliasAsked: alias}
	for _, r := range recs {
		doc.Records = append(doc.Records, matchOf(chroma.Hit{Record: r}))
	}
	return doc
}

// DocsFromKeywords is Docs answered from a keyword index (which keeps
// each chunk's text and the metadata a doc shows) instead of Chroma:
// what a command's documentation comes from when Chroma cannot be
// reached. An alias gives its command's page, as Docs does.
func DocsFromKeywords(ix *bm25.Index, command string) (CommandDoc, error) {
	command = PageName(command)
	if command == "" {
		return CommandDoc{}, fmt.Errorf("no command named: give one, e.g. \"grep\"")
	}
	if !ix.HasChunks() {
		return CommandDoc{}, fmt.Errorf("the keyword index has no chunk texts (saved by an older cmdai): a query in keyword or hybrid mode with Chroma up rewrites it")
	}
	owner, alias := command, ""
	if o, ok := ix.Command(command); ok && o != command {
		owner, alias = o, command
	}
	var recs []chroma.Record
	for _, i := range ix.ChunksOf(owner) {
		text, md := ix.Chunk(i)
		recs = append(recs, chroma.Record{ID: ix.ID(i), Document: text, Metadata: md.ToChroma()})
	}
	if len(recs) == 0 {
		return CommandDoc{}, NotIndexedError(command)
	}
	return DocOf(recs, alias), nil
}

// aliasOwner is the command whose page name is an alias of (gzip for
// gunzip), or "": a command's aliases are on its records, not records of
// their own. Only asked when name has no records, from the summaries
// alone (one per command, no text).
func (s Searcher) aliasOwner(ctx context.Context, name string) (string, error) {
	recs, err := s.Coll.All(ctx, chroma.Include{Where: index.WhereKind(index.KindSummary)})
	if err != nil {
		return "", fmt.Errorf("look %s up among the commands' aliases: %w", name, err)
	}
	for _, r := range recs {
		md := metaOf(r)
		for _, a := range md.Aliases {
			if a == name {
				return md.Command, nil
			}
		}
	}
	return "", nil
}

// kindOrder is the order Docs gives records: what the command is for,
// then how to call it, then the rest.
var kindOrder = map[index.Kind]int{index.KindSummary: 0, index.KindOption: 1, index.KindExample: 2, index.KindSection: 3}
