package homemove

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cmdai/cmdai/chroma/datalock"
)

// oldHome lays out what an older cmdai left in $HOME/.cache/cmdai: its
// data (chroma, keywords, a model) and its caches (vectors, downloads).
// It returns the environment and the two roots.
func oldHome(t *testing.T) (getenv func(string) string, from, to string) {
	t.Helper()
	home := t.TempDir()
	from = filepath.Join(home, ".cache", "cmdai")
	to = filepath.Join(home, ".local", "share", "cmdai")
	for path, body := range oldFiles {
		write(t, filepath.Join(from, path), body)
	}
	if err := os.Symlink("chroma.sqlite3", filepath.Join(from, "chroma", "db-link")); err != nil {
		t.Fatal(err)
	}
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, from, to
}

var oldFiles = map[string]string{
	"chroma/chroma.sqlite3":                       "sqlite pages",
	"chroma/0f3c/data_level0.bin":                 "hnsw",
	"keywords/cmdai_linux_debian-12.bm25":         "postings",
	"embeddings/all-MiniLM-L6-v2/manifest.json":   `{"name":"all-MiniLM-L6-v2"}`,
	"embeddings/all-MiniLM-L6-v2/model_int8.onnx": "weights",
	"embeddings/cache/ab/abcdef":                  "vectors",
	"downloads/chroma-index-debian-12.tar.gz":     "tarball",
}

var dataParts = []string{"chroma", "embeddings/all-MiniLM-L6-v2", "keywords"}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// moved checks the end state: the data in the data root, whole; the
// caches left in the cache root; no marker, no staging copy.
func moved(t *testing.T, from, to string) {
	t.Helper()
	for path, body := range oldFiles {
		where := to
		if strings.HasPrefix(path, "embeddings/cache") || strings.HasPrefix(path, "downloads") {
			where = from
		}
		if got, err := os.ReadFile(filepath.Join(where, path)); err != nil || string(got) != body {
			t.Errorf("%s in %s: %q, %v; want %q", path, where, got, err, body)
		}
	}
	if link, err := os.Readlink(filepath.Join(to, "chroma", "db-link")); err != nil || link != "chroma.sqlite3" {
		t.Errorf("link: %q, %v", link, err)
	}
	for _, p := range dataParts {
		if _, err := os.Lstat(filepath.Join(from, p)); err == nil {
			t.Errorf("%s still in the old home", p)
		}
	}
	left, _ := filepath.Glob(filepath.Join(to, "*moving*"))
	hidden, _ := filepath.Glob(filepath.Join(to, "*", ".*moving"))
	if len(left)+len(hidden) > 0 {
		t.Errorf("left behind: %v %v", left, hidden)
	}
}

func TestMovesOnce(t *testing.T) {
	getenv, from, to := oldHome(t)
	res, err := Run(context.Background(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Moved, dataParts) || res.Note != "" {
		t.Errorf("moved %v, note %q; want %v", res.Moved, res.Note, dataParts)
	}
	msg := res.Message()
	if !strings.Contains(msg, from) || !strings.Contains(msg, to) || strings.Contains(msg, "\n") {
		t.Errorf("message %q: want one line naming %s and %s", msg, from, to)
	}
	moved(t, from, to)
	again, err := Run(context.Background(), getenv)
	if err != nil || again.Message() != "" {
		t.Errorf("second run: %+v, %v; want nothing done", again, err)
	}
}

// Across file systems: copy, check, place, then remove the old one.
func TestMovesByCopy(t *testing.T) {
	getenv, from, to := oldHome(t)
	acrossDisks(t)
	if _, err := Run(context.Background(), getenv); err != nil {
		t.Fatal(err)
	}
	moved(t, from, to)
}

func acrossDisks(t *testing.T) {
	rename = func(string, string) error { return &os.LinkError{Op: "rename", Err: syscall.EXDEV} }
	t.Cleanup(func() { rename = os.Rename })
}

// Both roots hold data: nothing moves, and a note says so.
func TestBothHoldData(t *testing.T) {
	getenv, from, to := oldHome(t)
	write(t, filepath.Join(to, "keywords", "new.bm25"), "new postings")
	res, err := Run(context.Background(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Moved) != 0 || !strings.Contains(res.Note, from) || !strings.Contains(res.Note, to) || res.Message() != res.Note {
		t.Errorf("result %+v: want nothing moved and a note naming both roots", res)
	}
	if _, err := os.Stat(filepath.Join(from, "chroma", "chroma.sqlite3")); err != nil {
		t.Errorf("the old data was touched: %v", err)
	}
	if _, err := os.Stat(filepath.Join(to, "chroma")); err == nil {
		t.Error("chroma was moved next to the new data")
	}
}

// CMDAI_HOME (or XDG_DATA_HOME equal to XDG_CACHE_HOME): one root,
// nothing to move.
func TestOneRoot(t *testing.T) {
	getenv, from, _ := oldHome(t)
	for _, k := range []string{"CMDAI_HOME", "XDG_DATA_HOME"} {
		env := func(key string) string {
			switch key {
			case k:
				if k == "CMDAI_HOME" {
					return from
				}
				return filepath.Dir(from)
			case "XDG_CACHE_HOME":
				return filepath.Dir(from)
			}
			return getenv(key)
		}
		if res, err := Run(context.Background(), env); err != nil || res.Message() != "" {
			t.Errorf("%s: %+v, %v; want nothing", k, res, err)
		}
	}
	if _, err := os.Stat(filepath.Join(from, "chroma", "chroma.sqlite3")); err != nil {
		t.Errorf("data moved: %v", err)
	}
}

// A crash after any step (simulated by a step that fails) loses nothing,
// and the next run finishes the move.
func TestInterruptedMove(t *testing.T) {
	for _, copying := range []bool{false, true} {
		var steps []string
		getenv, _, _ := oldHome(t)
		if copying {
			acrossDisks(t)
		}
		afterStep = func(s string) error { steps = append(steps, s); return nil }
		if _, err := Run(context.Background(), getenv); err != nil {
			t.Fatal(err)
		}
		for crash := range steps {
			getenv, from, to := oldHome(t)
			n := 0
			afterStep = func(string) error {
				if n++; n == crash+1 {
					return errors.New("crash")
				}
				return nil
			}
			if _, err := Run(context.Background(), getenv); err == nil {
				t.Fatalf("copying %v, crash after %s: no error", copying, steps[crash])
			}
			whole(t, from, to, steps[crash])
			afterStep = func(string) error { return nil }
			if res, err := Run(context.Background(), getenv); err != nil || res.Note != "" {
				t.Fatalf("copying %v, after a crash after %s: %+v, %v", copying, steps[crash], res, err)
			}
			moved(t, from, to)
		}
		afterStep = func(string) error { return nil }
		if copying && !slices.Contains(steps, "copied keywords") {
			t.Errorf("steps %v: want the copy's", steps)
		}
	}
	rename = os.Rename
}

// whole: every data file is whole in one root or the other.
func whole(t *testing.T, from, to, step string) {
	t.Helper()
	for path, body := range oldFiles {
		a, _ := os.ReadFile(filepath.Join(from, path))
		b, _ := os.ReadFile(filepath.Join(to, path))
		if string(a) != body && string(b) != body {
			t.Errorf("crash after %s: %s is whole in neither root", step, path)
		}
	}
}

// An older cmdai's server on the old data: nothing moves until it ends.
func TestOldServerRuns(t *testing.T) {
	getenv, from, to := oldHome(t)
	lock, err := datalock.Take(context.Background(), filepath.Join(from, "chroma"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), getenv)
	if !errors.Is(err, ErrMove) || !strings.Contains(err.Error(), "stop it") {
		t.Errorf("held: %v; want ErrMove saying to stop it", err)
	}
	if _, serr := os.Stat(filepath.Join(from, "chroma", "chroma.sqlite3")); serr != nil {
		t.Errorf("moved under a running server: %v", serr)
	}
	datalock.Release(lock, filepath.Join(from, "chroma"))
	if _, err := Run(context.Background(), getenv); err != nil {
		t.Fatal(err)
	}
	moved(t, from, to)
}

// Two cmdai at once: one moves, the other waits for the lock, finds
// nothing left to move, and says nothing.
func TestTwoAtOnce(t *testing.T) {
	getenv, from, to := oldHome(t)
	results := make(chan Result, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			res, err := Run(context.Background(), getenv)
			results <- res
			errs <- err
		}()
	}
	movedBy := 0
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
		if res := <-results; len(res.Moved) > 0 {
			movedBy++
		} else if res.Message() != "" {
			t.Errorf("the second one says %q", res.Message())
		}
	}
	if movedBy != 1 {
		t.Errorf("moved by %d runs; want 1", movedBy)
	}
	moved(t, from, to)
}

// A setting that names the old place (CMDAI_CHROMA_DATA) keeps that
// part there; the rest moves.
func TestPinnedPartStays(t *testing.T) {
	getenv, from, to := oldHome(t)
	pinned := func(k string) string {
		if k == "CMDAI_CHROMA_DATA" {
			return filepath.Join(from, "chroma")
		}
		return getenv(k)
	}
	res, err := Run(context.Background(), pinned)
	if err != nil || slices.Contains(res.Moved, "chroma") || !slices.Contains(res.Moved, "keywords") {
		t.Errorf("moved %v, %v; want all but chroma", res.Moved, err)
	}
	if _, err := os.Stat(filepath.Join(from, "chroma", "chroma.sqlite3")); err != nil {
		t.Errorf("the pinned chroma moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(to, "keywords")); err != nil {
		t.Errorf("keywords: %v", err)
	}
	if again, err := Run(context.Background(), pinned); err != nil || again.Message() != "" {
		t.Errorf("second run: %+v, %v", again, err)
	}
}
