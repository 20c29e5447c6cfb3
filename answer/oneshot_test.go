package answer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// oneShot is a OneShot for the distribution "test" (collection coll) on
// machine getenv whose Connect fails with cause, counting its calls. Its
// model fails the test when opened: nothing here gets that far.
func oneShot(t *testing.T, getenv func(string) string, cause error, connects *int) *OneShot {
	t.Helper()
	return &OneShot{
		Connect: func(context.Context) (*connect.Connection, error) {
			*connects++
			return nil, cause
		},
		Distro: "test",
		Model: func(context.Context, string) (embed.Embedder, error) {
			t.Error("the model was opened")
			return nil, errors.New("no model in this test")
		},
		Getenv: getenv,
	}
}

// TestOneShotQueryFromDisk: OneShot returns the connection's failure
// (marked unreachable) as it is; Degrade over it answers the query from
// the keyword index on disk, degraded; strict, it is Chroma's error with
// exit 4; a failure disk cannot help (no index) is returned as it is.
func TestOneShotQueryFromDisk(t *testing.T) {
	getenv := machine(t)
	saveKeywords(t, getenv)
	ctx := context.Background()
	var n int
	q := QueryRequest{Request: "count words", K: 3, Mode: "keyword"}
	if _, err := oneShot(t, getenv, down, &n).Query(ctx, q); !errors.Is(err, down) {
		t.Errorf("the holder alone: %v; want Chroma's error", err)
	}
	res, err := oneShot(t, getenv, down, &n).Degraded().Query(ctx, q)
	if err != nil || !res.Degraded || res.Collection != coll || len(res.Commands) != 1 || res.Commands[0].Command != "wc" {
		t.Fatalf("Chroma down: %+v %v; want wc from the keyword index, degraded", res, err)
	}
	if !strings.Contains(res.DegradedReason, "chroma unreachable: nothing listens on 127.0.0.1:9") || res.Request != q.Request {
		t.Errorf("reason %q, request %q", res.DegradedReason, res.Request)
	}
	strict := q
	strict.Strict = true
	if _, err := oneShot(t, getenv, down, &n).Degraded().Query(ctx, strict); exitcode.Of(err) != exitcode.Unreachable || !errors.Is(err, down) {
		t.Errorf("strict: %v (exit %d); want Chroma's error, exit 4", err, exitcode.Of(err))
	}
	noIndex := exitcode.With(exitcode.NoIndex, errors.New("no index cmdai_linux_test"))
	if _, err := oneShot(t, getenv, noIndex, &n).Degraded().Query(ctx, q); !errors.Is(err, noIndex) || err.Error() != noIndex.Error() {
		t.Errorf("no index: %v; want it as it is", err)
	}
	if n != 4 {
		t.Errorf("%d connections for 4 queries", n)
	}
}

// TestOneShotRefusesBeforeConnecting: a mode that names none is a usage
// error, and a distribution that cannot be resolved its own error,
// before Chroma is asked for.
func TestOneShotRefusesBeforeConnecting(t *testing.T) {
	getenv := machine(t)
	ctx := context.Background()
	var n int
	a := oneShot(t, getenv, down, &n)
	if _, err := a.Query(ctx, QueryRequest{Request: "x", K: 1, Mode: "psychic"}); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("bad mode: %v; want exit 2", err)
	}
	bad := exitcode.With(exitcode.Usage, errors.New("--distro: no such distribution"))
	a.Resolve = func(context.Context, string) (distro.Info, error) { return distro.Info{}, bad }
	if _, err := a.Query(ctx, QueryRequest{Request: "x", K: 1, Mode: "keyword"}); !errors.Is(err, bad) {
		t.Errorf("query, bad distro: %v", err)
	}
	if _, err := a.Explain(ctx, ExplainRequest{Line: "wc -l"}); !errors.Is(err, bad) {
		t.Errorf("explain, bad distro: %v", err)
	}
	if _, err := a.Status(ctx, StatusRequest{}); !errors.Is(err, bad) {
		t.Errorf("status, bad distro: %v", err)
	}
	if n != 0 {
		t.Errorf("%d connections; want none", n)
	}
}

// TestOneShotResolvesTheRequestsDistro: the request's distribution,
// else the OneShot's, is the one resolved.
func TestOneShotResolvesTheRequestsDistro(t *testing.T) {
	var ids []string
	var n int
	a := oneShot(t, machine(t), down, &n)
	a.Resolve = func(_ context.Context, id string) (distro.Info, error) {
		ids = append(ids, id)
		return distro.Parse("test")
	}
	ctx := context.Background()
	a.Query(ctx, QueryRequest{Request: "x", K: 1, Mode: "keyword", Distro: "fedora-40"})
	a.Explain(ctx, ExplainRequest{Line: "cd /"})
	a.Status(ctx, StatusRequest{})
	if strings.Join(ids, ",") != "fedora-40,test,test" {
		t.Errorf("resolved %q", ids)
	}
}

// TestOneShotExplainIsLazy: explain connects on the first lookup only,
// once per line: a line of shell syntax alone (export, [[ ]]) or one the shell cannot parse
// reaches no Chroma; when Chroma cannot be reached the keyword index on
// disk judges (Degrade), degraded; strict, or an error disk cannot help,
// is the open's own error with its exit code.
func TestOneShotExplainIsLazy(t *testing.T) {
	getenv := machine(t)
	ctx := context.Background()
	var n int
	a := oneShot(t, getenv, down, &n).Degraded()
	if res, err := a.Explain(ctx, ExplainRequest{Line: "export A=1 && [[ -n $A ]]"}); err != nil || res.Degraded || n != 0 {
		t.Errorf("builtins: %+v %v, %d connections; want an answer and none", res, err, n)
	}
	if _, err := a.Explain(ctx, ExplainRequest{Line: "echo 'unterminated"}); exitcode.Of(err) != exitcode.Usage || n != 0 {
		t.Errorf("bad line: %v, %d connections; want exit 2 and none", err, n)
	}
	// no keyword index on disk: Chroma's error, saying so
	if _, err := a.Explain(ctx, ExplainRequest{Line: "wc -l a | wc -c"}); exitcode.Of(err) != exitcode.Unreachable || !strings.Contains(err.Error(), "no keyword index on disk") || n != 1 {
		t.Errorf("no keyword index: %v, %d connections; want exit 4 and one", err, n)
	}
	saveKeywords(t, getenv)
	res, err := a.Explain(ctx, ExplainRequest{Line: "wc -l a | wc -c"})
	if err != nil || !res.Degraded || !strings.Contains(res.DegradedReason, "option records from the keyword index") || res.Collection != coll || n != 2 {
		t.Fatalf("from disk: %+v %v, %d connections; want degraded, one more", res, err, n)
	}
	if len(res.Commands) != 2 || res.Commands[0].Name != "wc" {
		t.Errorf("commands: %+v", res.Commands)
	}
	if _, err := a.Explain(ctx, ExplainRequest{Line: "wc -l a", Strict: true}); !errors.Is(err, down) || exitcode.Of(err) != exitcode.Unreachable {
		t.Errorf("strict: %v; want Chroma's error, exit 4", err)
	}
	noIndex := exitcode.With(exitcode.NoIndex, errors.New("no index cmdai_linux_test: build it"))
	if _, err := oneShot(t, getenv, noIndex, &n).Degraded().Explain(ctx, ExplainRequest{Line: "wc -l a"}); !errors.Is(err, noIndex) || exitcode.Of(err) != exitcode.NoIndex {
		t.Errorf("no index: %v; want it as it is, exit 3", err)
	}
}

// TestOneShotDocsAndStatus: docs degrade as queries do; status has
// nothing on disk to tell, and returns Chroma's error.
func TestOneShotDocsAndStatus(t *testing.T) {
	getenv := machine(t)
	saveKeywords(t, getenv)
	ctx := context.Background()
	var n int
	a := oneShot(t, getenv, down, &n).Degraded()
	doc, err := a.Docs(ctx, DocsRequest{Command: "wc"})
	if err != nil || doc.Command != "wc" || !doc.Degraded {
		t.Errorf("docs: %+v %v; want wc from disk, degraded", doc, err)
	}
	if _, err := a.Docs(ctx, DocsRequest{Command: "wc", Strict: true}); !errors.Is(err, down) {
		t.Errorf("strict docs: %v", err)
	}
	if _, err := a.Status(ctx, StatusRequest{}); !errors.Is(err, down) || exitcode.Of(err) != exitcode.Unreachable {
		t.Errorf("status: %v; want Chroma's error, exit 4", err)
	}
}
