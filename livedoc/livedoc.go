// Package livedoc answers from the pages of commands installed on this
// machine, parsed live (their man page as `index init` parses it, else
// their --help output through helprun), for when neither Chroma nor the
// keyword index on disk can: one named command's documentation, or a
// request that names installed commands, ranked by BM25 over their
// chunks.
package livedoc

import (
	"context"
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/build/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/bm25"
)

// MaxCommands bounds how many installed commands one request's answer
// parses: a request names one or two; each costs a page parse (or a
// --help run of up to helprun's timeout).
const MaxCommands = 3

// Options say where commands and their pages are: Pages.PathDirs and
// Pages.ManPath (nil: $PATH and man-db's man path, as Run derives them).
// HelpFallback is always on: a command without a man page is read from
// its --help output, under helprun's rules (a deny list, no terminal or
// stdin, a timeout, an output cap).
type Options struct {
	Pages pages.Options
}

// FromEnv is Options for the environment getenv reads: its $PATH and
// $MANPATH, as `index init` would find them.
func FromEnv(getenv func(string) string) Options {
	dirs := scanner.SplitPath(getenv("PATH"))
	return Options{Pages: pages.Options{PathDirs: dirs, ManPath: scanner.ManPath(getenv, dirs, "")}}
}

func (o Options) pages() pages.Options {
	po := o.Pages
	po.HelpFallback = true
	return po
}

// Doc is the documentation of command from its page, parsed live, with
// where it came from ("the man page PATH" or "PATH --help"). A command not
// installed, or with neither a page nor --help output, is
// search.ErrUnknownCommand.
func Doc(ctx context.Context, o Options, command string) (search.CommandDoc, string, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return search.CommandDoc{}, "", fmt.Errorf("no command named: give one, e.g. \"grep\"")
	}
	rs, err := pages.Lookup(ctx, o.pages(), []string{command}, 1)
	if err != nil {
		return search.CommandDoc{}, "", fmt.Errorf("read the page of %s: %w", command, err)
	}
	if len(rs) == 0 {
		return search.CommandDoc{}, "", fmt.Errorf("%w %q: it is neither in the index nor installed here (no such executable on $PATH); search by what it does with search_commands", search.ErrUnknownCommand, command)
	}
	r := rs[0]
	if r.Status != pages.StatusParsed || len(r.Chunks) == 0 {
		return search.CommandDoc{}, "", fmt.Errorf("%w %q: it is not in the index, and %s has no page to read here (%s)", search.ErrUnknownCommand, command, r.Path, why(r))
	}
	return search.DocOf(chromaRecords(r.Chunks), ""), Where(r), nil
}

// Answer answers req from the installed commands it names (its words that
// are executables on the path, the first MaxCommands of them), ranked by
// BM25 over their pages' chunks as keyword mode ranks the index's: what
// an assistant still gets when Chroma and the keyword index on disk are
// both missing. ok is false when the request names no installed command
// with a page (or --help output) whose text answers it; where says whose
// pages answered.
func Answer(ctx context.Context, o Options, req search.Request) (a search.Answer, where []string, ok bool, err error) {
	rs, err := pages.Lookup(ctx, o.pages(), bm25.NameWords(req.Query), MaxCommands)
	if err != nil {
		return search.Answer{}, nil, false, fmt.Errorf("read the pages of the commands the request names: %w", err)
	}
	var docs []bm25.Doc
	for _, r := range rs {
		if r.Status != pages.StatusParsed {
			continue
		}
		for _, c := range r.Chunks {
			docs = append(docs, bm25.Doc{ID: c.ID, Command: c.Metadata.Command, Aliases: c.Metadata.Aliases, Text: c.Text, Meta: c.Metadata})
		}
		where = append(where, Where(r))
	}
	if len(docs) == 0 {
		return search.Answer{}, nil, false, nil
	}
	req.Mode = search.ModeKeyword
	a, err = search.Searcher{Keywords: bm25.Build(docs)}.Answer(ctx, req)
	if err != nil {
		return search.Answer{}, nil, false, err
	}
	return a, where, len(a.Commands) > 0, nil
}

// Where says which page a result was read from, for a degraded reason.
func Where(r pages.Result) string {
	if r.Source == pages.SourceHelp {
		return fmt.Sprintf("`%s --help`", r.Path)
	}
	return "the man page " + r.ManPage
}

// why says why a command found on the path gave no records.
func why(r pages.Result) string {
	switch {
	case r.Error != "":
		return r.Error
	case r.Status == pages.StatusNoManPage:
		return "no man page"
	}
	return r.Status
}

// chromaRecords gives records the form a collection returns them in, so
// that search builds the same CommandDoc from them as from the index.
func chromaRecords(recs []index.Record) []chroma.Record {
	out := make([]chroma.Record, len(recs))
	for i, r := range recs {
		out[i] = chroma.Record{ID: r.ID, Document: r.Text, Metadata: r.Metadata.ToChroma()}
	}
	return out
}
