// Package datalock is the private Chroma server's data-directory lock:
// the directory made private, one holder at a time (a flock the server
// process inherits), the record of who holds it, and waiting for a
// holder to let go.
package datalock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cmdai/cmdai/internal/procgroup"
	"github.com/cmdai/cmdai/internal/safefile"
)

// ErrLocked means another process owns the data directory.
var ErrLocked = errors.New("chroma data directory in use")

// Kind says what the holder of the data does with it, and so whether
// another cmdai that finds it held should wait for it or answer without
// it (answer.ServeFirst): an answer or a serve lets go, or answers for
// it, within seconds; an MCP session or a writer holds it for hours or
// minutes.
type Kind string

// The kinds of holder.
const (
	// KindRead answers a read (a one-shot answer, status, doctor): a
	// second or two.
	KindRead Kind = "read"
	// KindServe is cmdai serve, which answers the others once started.
	KindServe Kind = "serve"
	// KindSession is an MCP session's index, held until a serve wants it.
	KindSession Kind = "session"
	// KindWrite changes the index (init, refresh, import, clear) or reads
	// it whole (export): minutes.
	KindWrite Kind = "write"
)

// Brief tells whether a holder of kind k lets go (or answers through
// serve) within seconds. A holder that has not said (its record not
// written yet: it is starting its server; or an older cmdai) counts as
// brief: most holders are.
func (k Kind) Brief() bool { return k != KindSession && k != KindWrite }

// LockedError is ErrLocked with the holder's kind.
type LockedError struct {
	Kind Kind
	text string
}

func (e *LockedError) Error() string { return e.text }

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// HeldBriefly tells whether err says the data is held (ErrLocked) by a
// holder that lets go within seconds (Kind.Brief; one that did not say
// its kind counts as brief).
func HeldBriefly(err error) bool {
	var le *LockedError
	if errors.As(err, &le) {
		return le.Kind.Brief()
	}
	return errors.Is(err, ErrLocked)
}

// The lock file and the record of its owner, in the data directory.
const (
	LockName = "cmdai.lock"
	PIDName  = "cmdai.pid"
)

// PrivateDir makes the private server's data directory, or makes it
// private (0700, an older cmdai's 0755 too: the files are the index). A
// read-only filesystem gets its own message (ReadOnly): the server must
// write there (its SQLite file, its lock), so the way on is another
// directory or a server elsewhere.
func PrivateDir(dir string) error {
	err := os.MkdirAll(dir, 0o700)
	if fi, serr := os.Stat(dir); err == nil && serr == nil && fi.Mode().Perm() != 0o700 {
		err = os.Chmod(dir, 0o700)
	}
	if err != nil {
		return ReadOnly(dir, fmt.Errorf("create chroma data directory %s, private (0700): %w", dir, err))
	}
	return nil
}

// ReadOnly says what to do when err comes from the data directory dir
// being on a read-only filesystem, and returns any other err as it is.
func ReadOnly(dir string, err error) error {
	if !errors.Is(err, syscall.EROFS) {
		return err
	}
	return fmt.Errorf("chroma data directory %s is on a read-only filesystem, and the private Chroma server writes there: "+
		"point --chroma-data (or CMDAI_HOME) at a writable directory, or use a running Chroma with --chroma-url (%w)", dir, err)
}

// lockPoll is how often a waiting StartServer tries the data lock again:
// a one-shot holder's release is seen within a quarter second, at the
// cost of one flock call per tick.
const lockPoll = 250 * time.Millisecond

// Take locks dir (lockDataDir), trying again every lockPoll for up to
// wait while another process holds it, until ctx ends; onWait, when set,
// is told once that the wait begins, with the ErrLocked that names the
// holder. Release drops the lock.
func Take(ctx context.Context, dir string, wait time.Duration, onWait func(holder error)) (*os.File, error) {
	deadline := time.Now().Add(wait)
	told := false
	for {
		f, err := lockDataDir(dir)
		if err == nil || !errors.Is(err, ErrLocked) || wait <= 0 {
			return f, err
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("%w (waited %s for it)", err, wait)
		}
		if !told && onWait != nil {
			onWait(err)
		}
		told = true
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped waiting for the index data in %s: %w", dir, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// lockDataDir takes the exclusive lock on dir, clearing a server
// orphaned by a cmdai that was killed (it holds the inherited lock while
// its parent is gone).
func lockDataDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for attempt := 0; ; attempt++ {
		err := tryLock(f)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, errWouldBlock) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		rec, _ := readPID(dir)
		if attempt == 0 && rec.owner > 0 && !rec.ownerAlive() && rec.serverAlive() {
			server := rec.server
			// Its cmdai is gone: stop the server if it still runs, then
			// wait for the lock (one exiting has no command line left:
			// the kernel drops its memory before its files).
			if looksLikeChroma(server) {
				_ = procgroup.Signal(server, syscall.SIGTERM)
				if !lockWithin(f, 10*time.Second) && looksLikeChroma(server) {
					_ = procgroup.Signal(server, syscall.SIGKILL)
				}
			}
			if lockWithin(f, 5*time.Second) {
				return f, nil
			}
			continue
		}
		f.Close()
		return nil, &LockedError{Kind: rec.kind, text: fmt.Sprintf("%v: %s is using the index data in %s; wait for it to finish, or let several cmdai share one server: start `chroma run --path %s` and pass --chroma-url", ErrLocked, holder(rec), dir, dir)}
	}
}

// holder names the process that holds a data directory, as its pid file
// says: its cmdai (with the command it runs, where that can be read), or
// its chroma server.
func holder(rec record) string {
	switch {
	case rec.ownerAlive():
		if cmd := commandLine(rec.owner); cmd != "" {
			return fmt.Sprintf("another cmdai (pid %d: %s)", rec.owner, cmd)
		}
		return fmt.Sprintf("another cmdai (pid %d)", rec.owner)
	case rec.serverAlive():
		return fmt.Sprintf("a chroma server (pid %d)", rec.server)
	}
	return "another process"
}

// Release drops the lock Take returned (nil: none) and the record of
// its owner.
func Release(f *os.File, dir string) {
	if f == nil {
		return
	}
	_ = os.Remove(filepath.Join(dir, PIDName))
	_ = f.Close() // closing our descriptor drops the lock once the child's is gone too
}

// Record says who owns the directory, once its server runs: "<cmdai
// pid> <server pid> <port> <cmdai start> <server start> <kind>" (the
// lock's holder is this process, doing kind). The start times (procgroup.StartTime, 0 where
// they cannot be read) tell a recorded process from a later one that got
// its pid: a killed cmdai's pid, reused, must not keep its orphaned
// server's data locked, nor make cmdai stop a stranger.
func Record(dir string, server, port int, kind Kind) {
	self, _ := procgroup.StartTime(os.Getpid())
	srv, _ := procgroup.StartTime(server)
	// Atomic, so that a cmdai reading it while it is written (readPID)
	// never sees half a line.
	_ = safefile.WriteBytes(filepath.Join(dir, PIDName), []byte(fmt.Sprintf("%d %d %d %d %d %s\n", os.Getpid(), server, port, self, srv, kind)), 0o644)
}

// record is what Record wrote; an older cmdai's has no start times (0)
// nor kind.
type record struct {
	owner, server           int
	ownerStart, serverStart uint64
	kind                    Kind // "": not said (an older cmdai)
}

// ownerAlive and serverAlive: the recorded processes still run (not
// another process that has their pid now).
func (r record) ownerAlive() bool  { return r.owner > 0 && procgroup.Same(r.owner, r.ownerStart) }
func (r record) serverAlive() bool { return r.server > 0 && procgroup.Same(r.server, r.serverStart) }

func readPID(dir string) (record, error) {
	raw, err := os.ReadFile(filepath.Join(dir, PIDName))
	if err != nil {
		return record{}, err
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return record{}, fmt.Errorf("malformed %s", PIDName)
	}
	var r record
	r.owner, _ = strconv.Atoi(f[0])
	r.server, _ = strconv.Atoi(f[1])
	if len(f) >= 5 {
		r.ownerStart, _ = strconv.ParseUint(f[3], 10, 64)
		r.serverStart, _ = strconv.ParseUint(f[4], 10, 64)
	}
	if len(f) >= 6 {
		r.kind = Kind(f[5])
	}
	return r, nil
}

// WaitGone waits up to d for process pid to end.
func WaitGone(pid int, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end) && procgroup.Alive(pid); {
		time.Sleep(50 * time.Millisecond)
	}
}

// lockWithin polls the lock for up to d (the lock, not the process: a
// zombie that nothing reaps holds no lock).
func lockWithin(f *os.File, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if tryLock(f) == nil {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// HeldBy says, without waiting, whether dir's lock is held and by a
// holder of which kind ("" when it has not said).
func HeldBy(dir string) (bool, Kind) {
	held, _, _, err := Holder(dir)
	if err != nil || !held {
		return false, ""
	}
	rec, _ := readPID(dir)
	return true, rec.kind
}

// Holder says, without waiting, who holds dir's lock: held false when
// no one does (or there is no lock file yet); else the holder's pid (its
// cmdai, else its server) and a description. It takes the lock for an
// instant to tell, as only a lock attempt can.
func Holder(dir string) (held bool, pid int, who string, err error) {
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, 0, "", nil
	}
	if err != nil {
		return false, 0, "", err
	}
	defer f.Close()
	err = tryLock(f)
	if err == nil {
		return false, 0, "", nil // closing f drops it
	}
	if !errors.Is(err, errWouldBlock) {
		return false, 0, "", fmt.Errorf("lock %s: %w", filepath.Join(dir, LockName), err)
	}
	rec, _ := readPID(dir)
	pid = rec.server
	if rec.ownerAlive() {
		pid = rec.owner
	}
	return true, pid, holder(rec), nil
}
