package answer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer/answertest"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
)

const coll = answertest.Collection

var machine, saveKeywords = answertest.Machine, answertest.SaveKeywords

var down = answertest.Down

// TestFromDiskReadsNamedCommandsLive: with no keyword index on disk, a
// request naming an installed command is answered from its page, degraded
// and saying from where; strict, a request naming none, or a cause that
// disk cannot help keep the error.
func TestFromDiskReadsNamedCommandsLive(t *testing.T) {
	getenv := machine(t)
	ctx := context.Background()
	req := search.Request{Query: "how do I frob directories recursively", K: 3, Mode: search.ModeSemantic}
	res, err := QueryFromDisk(ctx, getenv, coll, req, time.Now(), down)
	if err != nil || len(res.Commands) != 1 || res.Commands[0].Command != "frob" || !res.Degraded {
		t.Fatalf("frob: %+v %v", res, err)
	}
	for _, w := range []string{"Chroma unavailable (chroma unreachable: nothing listens on 127.0.0.1:9)", "no keyword index on disk", "frob.1"} {
		if !strings.Contains(res.DegradedReason, w) {
			t.Errorf("reason %q lacks %q", res.DegradedReason, w)
		}
	}
	strict := req
	strict.Strict = true
	if _, err := QueryFromDisk(ctx, getenv, coll, strict, time.Now(), down); exitcode.Of(err) != exitcode.Unreachable {
		t.Errorf("strict: %v, want exit 4", err)
	}
	none := search.Request{Query: "twiddle some bits", K: 3}
	if _, err := QueryFromDisk(ctx, getenv, coll, none, time.Now(), down); exitcode.Of(err) != exitcode.Unreachable || !strings.Contains(err.Error(), "no answer from disk either") {
		t.Errorf("no command named: %v, want exit 4 and why", err)
	}
	other := exitcode.With(exitcode.NoIndex, errors.New("no index yet"))
	if _, err := QueryFromDisk(ctx, getenv, coll, req, time.Now(), other); !errors.Is(err, other) {
		t.Errorf("no index: %v, want it as it is", err)
	}
	// with a keyword index on disk, that answers (not the live page)
	saveKeywords(t, getenv)
	res, err = QueryFromDisk(ctx, getenv, coll, search.Request{Query: "frob count words", K: 3}, time.Now(), down)
	if err != nil || len(res.Commands) != 1 || res.Commands[0].Command != "wc" || !strings.Contains(res.DegradedReason, "keyword-only answer from") {
		t.Errorf("with a keyword index: %+v %v", res, err)
	}
}

// TestDocsFromDisk: a command's docs come from the keyword index on disk
// when it holds the command, else from its page parsed live; a command
// neither indexed nor installed is unknown; strict keeps Chroma's error.
func TestDocsFromDisk(t *testing.T) {
	getenv := machine(t)
	ctx := context.Background()
	doc, err := DocsFromDisk(ctx, getenv, coll, "frob", false, down)
	if err != nil || doc.Command != "frob" || !doc.Degraded || !strings.Contains(doc.DegradedReason, "no keyword index on disk; read live from the man page") || len(doc.Records) == 0 {
		t.Fatalf("frob without a keyword index: %+v %v", doc, err)
	}
	if _, err := DocsFromDisk(ctx, getenv, coll, "frob", true, down); !errors.Is(err, down) {
		t.Errorf("strict: %v, want Chroma's error", err)
	}
	if _, err := DocsFromDisk(ctx, getenv, coll, "nosuch", false, down); !errors.Is(err, search.ErrUnknownCommand) || !strings.Contains(err.Error(), "no keyword index") {
		t.Errorf("unknown: %v", err)
	}
	saveKeywords(t, getenv)
	doc, err = DocsFromDisk(ctx, getenv, coll, "wc", false, down)
	if err != nil || doc.Command != "wc" || !strings.Contains(doc.DegradedReason, "from the keyword index") || len(doc.Records) != 1 {
		t.Errorf("wc from the keyword index: %+v %v", doc, err)
	}
	doc, err = DocsFromDisk(ctx, getenv, coll, "frob", false, down)
	if err != nil || doc.Command != "frob" || !strings.Contains(doc.DegradedReason, "not in the keyword index on disk; read live") {
		t.Errorf("frob, not in the keyword index: %+v %v", doc, err)
	}
	if _, err := DocsFromDisk(ctx, getenv, coll, "nosuch", false, down); !errors.Is(err, search.ErrUnknownCommand) {
		t.Errorf("unknown with a keyword index: %v", err)
	}
}

// TestFromDiskNeverRunsACommand: with Chroma down and no keyword index on
// disk, a query or a docs request naming an installed command without a
// man page (helpy, whose --help would answer and leave a marker) runs
// nothing: the query keeps Chroma's error (exit 4) and the docs are
// unknown, both saying no man page is installed and what the user runs to
// index its --help.
func TestFromDiskNeverRunsACommand(t *testing.T) {
	getenv := machine(t)
	bin := filepath.SplitList(getenv("PATH"))[0]
	marker := filepath.Join(t.TempDir(), "helpy-ran")
	helpy := "#!/bin/sh\ntouch " + marker + "\necho 'Usage: helpy [-q] FILE'\necho '  -q, --quiet   say nothing'\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "helpy"), []byte(helpy), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hint := "cmdai index init --command helpy --help-fallback"
	_, err := QueryFromDisk(ctx, getenv, coll, search.Request{Query: "helpy: say nothing, quietly", K: 3}, time.Now(), down)
	if exitcode.Of(err) != exitcode.Unreachable || !strings.Contains(err.Error(), "no man page installed for helpy") || !strings.Contains(err.Error(), hint) {
		t.Errorf("query naming helpy: %v; want exit 4, no man page and %q", err, hint)
	}
	_, err = DocsFromDisk(ctx, getenv, coll, "helpy", false, down)
	if !errors.Is(err, search.ErrUnknownCommand) || !strings.Contains(err.Error(), "no man page installed") || !strings.Contains(err.Error(), hint) {
		t.Errorf("docs of helpy: %v; want unknown, no man page and %q", err, hint)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("helpy was run to answer a request")
	}
}

// With Chroma down, answerFromDisk answers by keyword from the saved
// keyword index and says so, the cause's first line and the file read;
// a strict request, or no saved index, gets the cause back.
func TestAnswerFromDisk(t *testing.T) {
	ctx := context.Background()
	getenv := machine(t)
	saveKeywords(t, getenv)
	dir := filepath.Join(getenv("CMDAI_HOME"), "keywords")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the keyword index is not in %s: %v", dir, err)
	}
	cause := errors.New("cannot reach Chroma at http://127.0.0.1:9\n  check the URL")
	req := search.Request{Query: "count words", K: 5, Mode: search.ModeHybrid}
	a, err := answerFromDisk(ctx, dir, coll, req, cause)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Commands) != 1 || a.Commands[0].Command != "wc" {
		t.Errorf("degraded answer %+v, want wc by keyword", a.Commands)
	}
	if !strings.Contains(a.Degraded, "cannot reach Chroma at http://127.0.0.1:9") || strings.Contains(a.Degraded, "\n") || !strings.Contains(a.Degraded, dir) {
		t.Errorf("Degraded = %q, want the cause's first line and the file read", a.Degraded)
	}
	req.Strict = true
	if _, err := answerFromDisk(ctx, dir, coll, req, cause); err != cause {
		t.Errorf("strict: %v, want the cause itself", err)
	}
	req.Strict = false
	if _, err := answerFromDisk(ctx, t.TempDir(), coll, req, cause); !errors.Is(err, cause) || !strings.Contains(err.Error(), "no keyword index") {
		t.Errorf("no saved index: %v, want the cause wrapped, saying there is no keyword index", err)
	}
}
