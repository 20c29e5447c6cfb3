package warm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// fakeEmbedder is a loaded model that embeds nothing; it says whether it
// was closed.
type fakeEmbedder struct {
	variant string
	closed  atomic.Bool
}

func (e *fakeEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("fake model: no embeddings")
}
func (e *fakeEmbedder) Info() embed.Info { return embed.Info{Variant: e.variant} }
func (e *fakeEmbedder) Close() error     { e.closed.Store(true); return nil }

// unreachable is Connect's error for a Chroma that does not answer.
var unreachable = exitcode.With(exitcode.Unreachable, errmark.As(errors.New("chroma unreachable: no heartbeat from http://127.0.0.1:1"), chroma.ErrUnreachable))

func debian(t *testing.T) distro.Info {
	t.Helper()
	info, err := distro.Parse("debian-12")
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestOpenDegraded: Chroma unreachable at the start is not fatal: the
// Index holds the model it loaded (the variant asked for), says in
// Where that it runs without Chroma and why, answers status with
// Chroma's error and requests for another index with ErrNotHeld, logs
// that it runs degraded when started and tries Chroma in the background;
// Close closes the model.
func TestOpenDegraded(t *testing.T) {
	e := &fakeEmbedder{variant: "fp32"}
	var asked []string
	var tries atomic.Int64
	var mu sync.Mutex
	var log []string
	home := t.TempDir()
	w, err := Open(context.Background(), Options{
		Open: func(context.Context) (distro.Info, *connect.Connection, error) { return debian(t), nil, unreachable },
		Connect: func(context.Context) (*connect.Connection, error) {
			tries.Add(1)
			return nil, unreachable
		},
		ChromaURL: "http://127.0.0.1:1",
		Model: func(_ context.Context, variant string) (embed.Embedder, error) {
			asked = append(asked, variant)
			return e, nil
		},
		Variant: "fp32",
		Getenv:  func(k string) string { return map[string]string{"CMDAI_HOME": home}[k] },
		Logf: func(format string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			log = append(log, fmt.Sprintf(format, a...))
		},
		RetryEvery: time.Millisecond,
	})
	if err != nil {
		t.Fatalf("open without Chroma: %v; want a degraded Index", err)
	}
	if len(asked) != 1 || asked[0] != "fp32" {
		t.Errorf("model variants loaded: %q; want the one asked for", asked)
	}
	want := answer.Holding{Collection: "cmdai_linux_debian-12", ChromaURL: "http://127.0.0.1:1", Degraded: true, DegradedReason: unreachable.Error()}
	if h := w.Where(); h != want {
		t.Errorf("where: %+v; want %+v", h, want)
	}
	if _, err := w.Status(context.Background(), answer.StatusRequest{}); err != unreachable {
		t.Errorf("status: %v; want Chroma's error", err)
	}
	if _, err := w.Query(context.Background(), answer.QueryRequest{Request: "x", Distro: "fedora-40"}); !errors.Is(err, answer.ErrNotHeld) {
		t.Errorf("query of another index: %v; want ErrNotHeld", err)
	}
	if _, err := w.Explain(context.Background(), answer.ExplainRequest{Line: "ls", Distro: "a b"}); exitcode.Of(err) != exitcode.Usage || !strings.HasPrefix(err.Error(), "--distro: ") {
		t.Errorf("explain for a bad distro: exit %d %v; want a usage error", exitcode.Of(err), err)
	}
	if _, err := w.Docs(context.Background(), answer.DocsRequest{Command: "grep", Strict: true}); err != unreachable {
		t.Errorf("strict docs without Chroma: %v; want Chroma's error", err)
	}
	stop := w.Start()
	for deadline := time.Now().Add(30 * time.Second); tries.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never tried Chroma again")
		}
	}
	stop()
	w.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(log) == 0 || !strings.HasPrefix(log[0], "running degraded: "+unreachable.Error()) || !strings.Contains(log[0], "tries Chroma again in 1ms") {
		t.Errorf("log: %q; want it to say first that serve runs degraded, why and when it tries again", log)
	}
	if !e.closed.Load() {
		t.Error("Close left the model open")
	}
}

// TestOpenFails: Open returns the first error, Chroma's before the
// model's, and closes what it opened.
func TestOpenFails(t *testing.T) {
	badModel := exitcode.With(exitcode.Verification, errors.New("embedding model not installed"))
	for _, c := range []struct {
		name     string
		chroma   error
		model    error
		want     error
		anyConn  bool
		modelOut bool // the model loaded, and must be closed
	}{
		{"no model", nil, badModel, badModel, true, false},
		{"no Chroma, no model", unreachable, badModel, unreachable, false, false},
		{"Chroma held by another cmdai", exitcode.With(exitcode.Busy, errmark.As(errors.New("locked"), chroma.ErrLocked)), nil, nil, false, true},
		{"a bad distribution", exitcode.With(exitcode.Usage, errors.New("--distro: bad")), nil, nil, false, true},
		// exit 4 without Chroma's sentinel (not a Chroma that is down)
		// is an error, not a degraded start
		{"exit 4 alone", exitcode.With(exitcode.Unreachable, errors.New("a download server is silent")), nil, nil, false, true},
	} {
		want := c.want
		if want == nil {
			want = c.chroma
		}
		e := &fakeEmbedder{}
		var conn *connect.Connection
		w, err := Open(context.Background(), Options{
			Open: func(context.Context) (distro.Info, *connect.Connection, error) {
				if c.anyConn {
					conn = &connect.Connection{}
					return debian(t), conn, nil
				}
				return debian(t), nil, c.chroma
			},
			Model: func(context.Context, string) (embed.Embedder, error) {
				if c.model != nil {
					return nil, c.model
				}
				return e, nil
			},
		})
		if w != nil || err != want {
			t.Errorf("%s: %v %v; want %v", c.name, w, err, want)
		}
		if c.anyConn && !conn.Closed() {
			t.Errorf("%s: the connection was left open", c.name)
		}
		if c.modelOut && !e.closed.Load() {
			t.Errorf("%s: the model was left open", c.name)
		}
	}
}
