package answer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cmdai/cmdai/answer/livedoc"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
)

// Degradable says whether an answer from disk may stand in for the
// index: Chroma could not be started or reached (chroma.ErrUnreachable),
// or another cmdai holds its data (chroma.ErrLocked). Anything else (no
// index, a bad model) is not helped by disk.
func Degradable(cause error) bool {
	return errors.Is(cause, chroma.ErrUnreachable) || errors.Is(cause, chroma.ErrLocked)
}

// QueryFromDisk is the answer from what is on disk for a request that
// Chroma could not answer (cause): keyword-only from the keyword index
// on disk, else, when there is none, from the installed commands the
// request names, their man pages parsed live (livedoc, which never runs
// a program). One-shot queries, serve and the MCP server degrade alike.
// A cause that is not Degradable, or a strict request, is returned as it
// is; so is cause when nothing on disk answers (with why, and what to
// run for a named command without a man page).
func QueryFromDisk(ctx context.Context, getenv func(string) string, collection string, req search.Request, start time.Time, cause error) (QueryResult, error) {
	if !Degradable(cause) {
		return QueryResult{}, cause
	}
	getenv = orOS(getenv)
	dir, err := config.KeywordDir(getenv)
	if err != nil {
		return QueryResult{}, cause
	}
	a, err := answerFromDisk(ctx, dir, collection, req, cause)
	if err == nil {
		return result(req.Query, collection, a, start), nil
	}
	if req.Strict || ctx.Err() != nil {
		return QueryResult{}, err
	}
	live, where, ok, lerr := livedoc.Answer(ctx, livedoc.FromEnv(getenv), req)
	if errors.Is(lerr, livedoc.ErrNoManPage) {
		return QueryResult{}, fmt.Errorf("%w\n  %v", err, lerr)
	}
	if lerr != nil || !ok {
		// the error as without the live pages: nothing answers
		return QueryResult{}, err
	}
	live.Degraded = DegradedReason(cause, "no keyword index on disk; keyword-only answer from the installed commands the request names, read live from "+strings.Join(where, ", "))
	return result(req.Query, collection, live, start), nil
}

// DocsFromDisk is one command's documentation when Chroma could not give
// it (cause): from the keyword index on disk (each chunk's text and
// metadata), else, when that lacks the command or there is none, from
// the command's man page on this machine parsed live (never its --help:
// no program runs for a request). The doc says it is degraded and where
// it came from. A cause that is not Degradable, or strict, returns
// cause; a command neither indexed nor installed is
// search.ErrUnknownCommand.
func DocsFromDisk(ctx context.Context, getenv func(string) string, collection, command string, strict bool, cause error) (search.CommandDoc, error) {
	if strict || !Degradable(cause) {
		return search.CommandDoc{}, cause
	}
	getenv = orOS(getenv)
	var kwErr error
	if dir, err := config.KeywordDir(getenv); err != nil {
		kwErr = err
	} else if ix, path, err := kwstore.Saved(dir, collection); err != nil {
		kwErr = err
	} else {
		doc, err := search.DocsFromKeywords(ix, command)
		if err == nil {
			return degradedDoc(doc, cause, "from the keyword index "+path), nil
		}
		if !errors.Is(err, search.ErrUnknownCommand) {
			return search.CommandDoc{}, fmt.Errorf("%w\n  and no answer from disk either: %v", cause, err)
		}
	}
	doc, where, err := livedoc.Doc(ctx, livedoc.FromEnv(getenv), command)
	if errors.Is(err, search.ErrUnknownCommand) {
		if kwErr != nil {
			// the index may hold it: say why it could not be asked
			err = fmt.Errorf("%w (Chroma is unavailable and there is no keyword index on disk, so only installed commands could be read)", err)
		}
		return search.CommandDoc{}, err
	}
	if err != nil {
		if kwErr != nil {
			err = fmt.Errorf("%v; %w", kwErr, err)
		}
		return search.CommandDoc{}, fmt.Errorf("%w\n  and no answer from disk either: %v", cause, err)
	}
	from := "read live from " + where
	if kwErr != nil {
		from = "no keyword index on disk; " + from
	} else {
		from = "not in the keyword index on disk; " + from
	}
	return degradedDoc(doc, cause, from), nil
}

func degradedDoc(doc search.CommandDoc, cause error, from string) search.CommandDoc {
	doc.Degraded, doc.DegradedReason = true, DegradedReason(cause, from)
	return doc
}

// ExplainFromDisk judges line by the keyword index on disk (each chunk's
// text and metadata, saved by an earlier query) when Chroma could not
// give the records (cause): the answer says it is degraded and why. A
// cause that is not Degradable, or strict, is returned as it is; so is
// cause when no keyword index is on disk.
func ExplainFromDisk(ctx context.Context, getenv func(string) string, collection, line string, onPath func(string) bool, strict bool, start time.Time, cause error) (ExplainResult, error) {
	lookup, reason, err := DiskLookup(getenv, collection, strict, cause)
	if err != nil {
		return ExplainResult{}, err
	}
	res, err := Judge(ctx, line, collection, lookup, onPath, start)
	res.Degraded, res.DegradedReason = err == nil, reason
	if err != nil {
		res.DegradedReason = ""
	}
	return res, err
}

// DiskLookup is a lookup of the commands' records in the keyword index on
// disk, and the degraded reason to give with its answers, when Chroma
// could not be used (cause, see ExplainFromDisk). The man pages are not
// read: explain judges by the index alone.
func DiskLookup(getenv func(string) string, collection string, strict bool, cause error) (explain.Lookup, string, error) {
	if strict || !Degradable(cause) {
		return nil, "", cause
	}
	dir, err := config.KeywordDir(orOS(getenv))
	if err != nil {
		return nil, "", cause
	}
	ix, path, err := kwstore.Saved(dir, collection)
	if err != nil {
		return nil, "", fmt.Errorf("%w\n  and no keyword index on disk to judge by either: %v", cause, err)
	}
	lookup := func(_ context.Context, command string) (search.CommandDoc, error) {
		return search.DocsFromKeywords(ix, command)
	}
	return lookup, DegradedReason(cause, "option records from the keyword index "+path), nil
}

func orOS(getenv func(string) string) func(string) string {
	if getenv == nil {
		return os.Getenv
	}
	return getenv
}

// answerFromDisk answers the request when Chroma cannot be reached (cause):
// by keyword ranking over the collection's keyword index as last saved in
// dir, so that an assistant still gets an answer. The answer says it is
// degraded and why. A strict request, or one with no keyword index on
// disk, gets cause back (wrapped, with what else went wrong), so that the
// caller keeps its exit code.
func answerFromDisk(ctx context.Context, dir, collection string, req search.Request, cause error) (search.Answer, error) {
	if req.Strict {
		return search.Answer{}, cause
	}
	ix, path, err := kwstore.Saved(dir, collection)
	if err != nil {
		return search.Answer{}, fmt.Errorf("%w\n  and no answer from disk either: %v", cause, err)
	}
	req.Mode = search.ModeKeyword
	a, err := search.Searcher{Keywords: ix}.Answer(ctx, req)
	if err != nil {
		return search.Answer{}, err
	}
	a.Degraded = DegradedReason(cause, "keyword-only answer from "+path)
	return a, nil
}

// DegradedReason is the one wording of why an answer does not come from
// Chroma (cause, its first line) and where it comes from instead.
func DegradedReason(cause error, from string) string {
	return fmt.Sprintf("Chroma unavailable (%s): %s", firstLine(cause.Error()), from)
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
