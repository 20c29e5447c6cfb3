// Package homemove brings the index and the model that older cmdai kept
// in the cache root (~/.cache/cmdai) over to the data root
// (~/.local/share/cmdai), once, safely: only when the data root holds
// none of them yet, under a lock so that two cmdai never both move, by
// rename where it can and by copy, verify, then remove where it cannot,
// and so that a crash at any point leaves a state the next run finishes.
package homemove

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/safefile"
)

// Result says what a Run did: the parts it moved (relative paths), or,
// when both roots hold data, a Note for the user and nothing moved.
type Result struct {
	From, To string
	Moved    []string
	Note     string
}

// Message is the one line for stderr that says what happened ("": nothing).
func (r Result) Message() string {
	switch {
	case r.Note != "":
		return r.Note
	case len(r.Moved) > 0:
		return fmt.Sprintf("moved your index and model (%s) from %s to %s, where cmdai keeps them now; caches stay in %s",
			strings.Join(r.Moved, ", "), r.From, r.To, r.From)
	}
	return ""
}

// ErrMove means the old data could not be moved; it is still where it
// was, and the message says what to move by hand.
var ErrMove = errors.New("cannot move cmdai's data to its new place")

// lockWait bounds the wait for another cmdai that is moving the data:
// a rename takes milliseconds, a copy across disks of a large index a
// minute or so.
const lockWait = 5 * time.Minute

// Seams for the tests: a rename that fails as across file systems, and a
// crash after a step.
var (
	rename    = os.Rename
	afterStep = func(string) error { return nil }
)

// Run moves the old home's data over when there is something to move.
// It returns at once, without a lock, when there is nothing to do: the
// roots are one, or the old home holds no data and no move is under way.
func Run(ctx context.Context, getenv config.Env) (Result, error) {
	h, err := config.FindOldHome(getenv)
	if err != nil || h.From == h.To {
		return Result{}, err
	}
	res := Result{From: h.From, To: h.To}
	pinned := config.PinnedDataDirs(getenv)
	if !exists(h.Marker) && len(unpinned(h.From, config.DataParts(h.From), pinned)) == 0 {
		return res, nil
	}
	if err := os.MkdirAll(h.To, 0o755); err != nil {
		return res, fmt.Errorf("%w: create %s: %v", ErrMove, h.To, err)
	}
	lock, err := datalock.Take(ctx, h.To, lockWait, nil)
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrMove, err)
	}
	defer datalock.Release(lock, h.To)
	return move(ctx, h, res, pinned)
}

// unpinned leaves out the parts a setting names (CMDAI_CHROMA_DATA set
// to the old ~/.cache/cmdai/chroma): those stay where the user put them.
func unpinned(root string, parts, pinned []string) []string {
	var out []string
	for _, p := range parts {
		full := filepath.Join(root, p)
		if !slices.ContainsFunc(pinned, func(d string) bool { return d == full || strings.HasPrefix(d, full+string(filepath.Separator)) }) {
			out = append(out, p)
		}
	}
	return out
}

// move runs under the data root's lock: the state is read again, as
// another cmdai may have moved it while this one waited.
func move(ctx context.Context, h config.OldHome, res Result, pinned []string) (Result, error) {
	parts := unpinned(h.From, config.DataParts(h.From), pinned)
	if !exists(h.Marker) {
		if len(parts) == 0 {
			return res, nil
		}
		if have := config.DataParts(h.To); len(have) > 0 {
			res.Note = fmt.Sprintf("note: %s holds an older index or model (%s), but cmdai now uses %s, which has its own (%s): nothing was moved; remove the old copies, or move them over by hand in place of the new ones",
				h.From, strings.Join(parts, ", "), h.To, strings.Join(have, ", "))
			return res, nil
		}
		// The marker first: from here on, a crash is finished by the
		// next run, not taken for "both roots hold data".
		if err := safefile.WriteBytes(h.Marker, []byte(h.From+"\n"), 0o644); err != nil {
			return res, fmt.Errorf("%w: %v", ErrMove, err)
		}
		if err := afterStep("marker"); err != nil {
			return res, err
		}
	}
	// An older cmdai's private server may still run on the old data.
	if old := filepath.Join(h.From, "chroma"); exists(old) {
		lock, err := datalock.Take(ctx, old, 0, nil)
		if err != nil {
			return res, fmt.Errorf("%w: %w; stop it, then run cmdai again: it moves the data to %s", ErrMove, err, h.To)
		}
		defer datalock.Release(lock, old)
	}
	for _, p := range parts {
		if err := movePart(filepath.Join(h.From, p), filepath.Join(h.To, p), p); err != nil {
			return res, err
		}
		res.Moved = append(res.Moved, p)
	}
	if err := os.Remove(h.Marker); err != nil {
		return res, fmt.Errorf("%w: %v", ErrMove, err)
	}
	return res, nil
}

// movePart moves src to dst. A dst already there was put there whole by
// an earlier run (a rename, or a verified copy renamed into place), so
// only the removal of src is left. Otherwise a rename, else (another
// file system) a copy into a staging directory beside dst, checked file
// by file, renamed into place, and only then src removed.
func movePart(src, dst, name string) error {
	if exists(dst) {
		return removeOld(src, name)
	}
	if !exists(src) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("%w: %v", ErrMove, err)
	}
	err := rename(src, dst)
	if err == nil {
		_ = safefile.SyncDir(filepath.Dir(dst))
		return afterStep("renamed " + name)
	}
	if !errors.Is(err, syscall.EXDEV) {
		return fmt.Errorf("%w: %v; nothing is lost: move %s to %s by hand, then run cmdai again", ErrMove, err, src, dst)
	}
	staging := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".moving")
	if err := os.RemoveAll(staging); err != nil {
		return fmt.Errorf("%w: remove an unfinished copy: %v", ErrMove, err)
	}
	if err := copyTree(src, staging); err != nil {
		return copyFailed(err, src, dst, staging)
	}
	if err := afterStep("copied " + name); err != nil {
		return err
	}
	if err := sameTree(src, staging); err != nil {
		return copyFailed(err, src, dst, staging)
	}
	if err := os.Rename(staging, dst); err != nil {
		return copyFailed(err, src, dst, staging)
	}
	_ = safefile.SyncDir(filepath.Dir(dst))
	if err := afterStep("placed " + name); err != nil {
		return err
	}
	return removeOld(src, name)
}

func copyFailed(err error, src, dst, staging string) error {
	_ = os.RemoveAll(staging)
	return fmt.Errorf("%w: copy %s to %s: %v; nothing is lost, %s is as it was: free some space there, or move it by hand (mv %s %s), then run cmdai again",
		ErrMove, src, dst, err, src, src, dst)
}

func removeOld(src, name string) error {
	if err := os.RemoveAll(src); err != nil {
		return fmt.Errorf("%w: its copy is in place, but %s could not be removed: %v (remove it by hand)", ErrMove, src, err)
	}
	return afterStep("removed " + name)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
