// Package livedoc answers from the man pages of commands installed on
// this machine, parsed live as `index init` parses them, for when neither
// Chroma nor the keyword index on disk can: one named command's
// documentation, or a request that names installed commands, ranked by
// BM25 over their chunks. It reads installed files only and never runs a
// program: its callers answer serve's and MCP's clients, and a client
// must not be able to make cmdai execute anything on this machine. A
// command without a man page is answered with how the user can index its
// --help output themselves (`index init --help-fallback`).
package livedoc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/bm25"
)

// MaxCommands bounds how many installed commands one request's answer
// parses: a request names one or two; each costs a page parse.
const MaxCommands = 3

// ErrNoManPage is returned (wrapped) for a command installed here whose
// documentation could only come from running it: livedoc never does.
var ErrNoManPage = errors.New("no man page installed")

// Options say where commands and their pages are: Pages.PathDirs and
// Pages.ManPath (nil: $PATH and man-db's man path, as Run derives them).
// Pages.HelpFallback and Pages.HelpCommands are ignored: livedoc never
// runs a command's --help.
type Options struct {
	Pages pages.Options
}

// FromEnv is Options for the environment getenv reads: its $PATH and
// $MANPATH, as `index init` would find them.
func FromEnv(getenv func(string) string) Options {
	dirs := scanner.SplitPath(getenv("PATH"))
	return Options{Pages: pages.Options{PathDirs: dirs, ManPath: scanner.ManPath(getenv, dirs, "")}}
}

// pages are the options Lookup gets: man pages only, whatever the caller
// set, so that no request can make it run a program.
func (o Options) pages() pages.Options {
	po := o.Pages
	po.HelpFallback, po.HelpCommands = false, nil
	return po
}

// Doc is the documentation of command from its man page, parsed live,
// with where it came from ("the man page PATH"). A command not installed,
// or without a readable man page, is search.ErrUnknownCommand; one
// without a man page is also ErrNoManPage, its message saying how the
// user can index its --help output.
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
	if r.Status == pages.StatusNoManPage {
		return search.CommandDoc{}, "", fmt.Errorf("%w %q: it is not in the index, and %w for %s here (cmdai never runs a program to answer a request); %s", search.ErrUnknownCommand, command, ErrNoManPage, r.Path, HelpHint(command))
	}
	if r.Status != pages.StatusParsed || len(r.Chunks) == 0 {
		return search.CommandDoc{}, "", fmt.Errorf("%w %q: it is not in the index, and %s has no page to read here (%s)", search.ErrUnknownCommand, command, r.Path, why(r))
	}
	return search.DocOf(chromaRecords(r.Chunks), ""), Where(r), nil
}

// HelpHint is what a user runs to index the --help output of commands
// without a man page: the one place cmdai runs a program for its pages is
// the user's own init.
func HelpHint(commands ...string) string {
	its := "its"
	if len(commands) > 1 {
		its = "their"
	}
	return fmt.Sprintf("`cmdai index init --command %s --help-fallback` reads %s --help into the index", strings.Join(commands, " --command "), its)
}

// Answer answers req from the installed commands it names (its words that
// are executables on the path, the first MaxCommands of them), ranked by
// BM25 over their man pages' chunks as keyword mode ranks the index's:
// what an assistant still gets when Chroma and the keyword index on disk
// are both missing. ok is false when the request names no installed
// command with a man page whose text answers it; where says whose pages
// answered. When nothing answers and some named commands have no man
// page, err is ErrNoManPage (wrapped) naming them and what to run.
func Answer(ctx context.Context, o Options, req search.Request) (a search.Answer, where []string, ok bool, err error) {
	rs, err := pages.Lookup(ctx, o.pages(), bm25.NameWords(req.Query), MaxCommands)
	if err != nil {
		return search.Answer{}, nil, false, fmt.Errorf("read the pages of the commands the request names: %w", err)
	}
	var docs []bm25.Doc
	var noPage []string
	for _, r := range rs {
		if r.Status == pages.StatusNoManPage {
			noPage = append(noPage, r.Command)
		}
		if r.Status != pages.StatusParsed {
			continue
		}
		for _, c := range r.Chunks {
			docs = append(docs, bm25.Doc{ID: c.ID, Command: c.Metadata.Command, Aliases: c.Metadata.Aliases, Text: c.Text, Meta: c.Metadata})
		}
		where = append(where, Where(r))
	}
	if len(docs) > 0 {
		req.Mode = search.ModeKeyword
		a, err = search.Searcher{Keywords: bm25.Build(docs)}.Answer(ctx, req)
		if err != nil {
			return search.Answer{}, nil, false, err
		}
		if len(a.Commands) > 0 {
			return a, where, true, nil
		}
	}
	if len(noPage) > 0 {
		return search.Answer{}, nil, false, noManPage(noPage)
	}
	return search.Answer{}, nil, false, nil
}

// noManPage says which named commands have no man page to read, and how
// the user indexes their --help output instead.
func noManPage(names []string) error {
	return fmt.Errorf("%w for %s (cmdai never runs a program to answer a request); %s", ErrNoManPage, strings.Join(names, ", "), HelpHint(names...))
}

// Where says which page a result was read from, for a degraded reason.
func Where(r pages.Result) string {
	return "the man page " + r.ManPage
}

// why says why a command found on the path gave no records.
func why(r pages.Result) string {
	if r.Error != "" {
		return r.Error
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
