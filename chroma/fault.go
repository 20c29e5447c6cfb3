package chroma

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"time"
)

// ErrServerStopped means the private server exited while cmdai was
// using it.
var ErrServerStopped = errors.New("the Chroma server stopped")

// ErrNoSpace means the disk under Chroma's data is (or would be) full.
var ErrNoSpace = errors.New("no space left")

// StoppedError says the private server died, with the end of its log.
type StoppedError struct {
	Log    string // the server's log file
	Tail   string // its last lines, indented, escape sequences removed
	Status string // how the process ended ("signal: killed", "exit status 1")
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("the Chroma server stopped (%s) while cmdai was using it: last lines of %s:\n%s\n  run the command again: it starts a new server on the same data", e.Status, e.Log, e.Tail)
}

// Is makes errors.Is(err, ErrServerStopped) true.
func (e *StoppedError) Is(target error) bool { return target == ErrServerStopped }

// Lost returns a *StoppedError when the server has exited without Stop
// having been called, and nil while it runs. A server killed a moment ago
// may not be reaped yet: if it does not answer its heartbeat, Lost waits
// briefly for the exit.
func (s *Server) Lost() error {
	if s == nil || s.cmd == nil {
		return nil
	}
	select {
	case <-s.exited:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := probe(ctx, s.URL, 2*time.Second); err == nil {
			return nil
		}
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
			return nil // alive but slow: not a death
		}
	}
	status := "it exited"
	if s.waitErr != nil {
		status = s.waitErr.Error()
	}
	log := s.logPath()
	return &StoppedError{Log: log, Tail: tailFile(log, 12), Status: status}
}

func (s *Server) logPath() string { return LogPath(s.DataDir) }

// LogPath is where the private server over dataDir writes its log.
func LogPath(dataDir string) string { return filepath.Join(dataDir, logName) }

// noSpaceText is what Chroma's errors say when a write hits a full disk:
// the OS error itself (Rust's "os error 28", SQLite's "database or disk
// is full").
var noSpaceText = regexp.MustCompile(`(?i)no space left on device|os error 28|ENOSPC|disk (is )?full`)

// compactionText is the failure a full disk often surfaces as, though a
// compaction can fail for other reasons too.
var compactionText = regexp.MustCompile(`(?i)compact(ion|or)[^\n]*(fail|error)|(fail|error)[^\n]*compact(ion|or)`)

// IsNoSpace reports whether an error from Chroma (or its log) says that
// the disk is full.
func IsNoSpace(err error) bool {
	return err != nil && (errors.Is(err, ErrNoSpace) || noSpaceText.MatchString(err.Error()))
}

// IsCompactionFailure reports a failed compaction: a full disk when the
// disk has little room left (the caller checks), something else otherwise.
func IsCompactionFailure(err error) bool {
	return err != nil && compactionText.MatchString(err.Error())
}

// LowSpace is free space under which a failed compaction is taken for a
// full disk.
const LowSpace = 64 << 20

// Answers checks, within a few seconds, that a server at url answers its
// heartbeat: after a failed call, it tells a server that went away from
// one that refused the request.
func Answers(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := probe(ctx, url, 3*time.Second)
	return err
}
