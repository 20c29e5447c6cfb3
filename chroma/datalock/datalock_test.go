//go:build unix

package datalock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cmdai/cmdai/internal/procgroup"
)

// holdDataDir takes dir's data lock through a second open file (flock
// locks belong to open files, so this process contends with itself) and
// records this process as its cmdai, as a StartServer would; release
// drops both.
func holdDataDir(t *testing.T, dir string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, PIDName), []byte(fmt.Sprintf("%d %d 1\n", os.Getpid(), os.Getpid())), 0o644)
	var once sync.Once // released by the test's goroutine or its cleanup
	release = func() {
		once.Do(func() {
			os.Remove(filepath.Join(dir, PIDName))
			f.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// TestTakeNoWait: without a wait a held directory is ErrLocked at
// once, naming the holder (pid and command) and the way out, and the
// wait callback is not called.
func TestTakeNoWait(t *testing.T) {
	dir := t.TempDir()
	holdDataDir(t, dir)
	_, err := Take(context.Background(), dir, 0, func(error) { t.Error("onWait called without a wait") })
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	want := fmt.Sprintf("another cmdai (pid %d: %s", os.Getpid(), filepath.Base(os.Args[0]))
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--chroma-url") {
		t.Errorf("err = %v; want the holder (%q...) and the way out", err, want)
	}
}

// TestTakeWaitsForHolder: with a wait the lock is taken once the
// holder lets go; the callback is told once, with the holder.
func TestTakeWaitsForHolder(t *testing.T) {
	dir := t.TempDir()
	release := holdDataDir(t, dir)
	told := make(chan error, 10)
	go func() {
		<-told
		release()
	}()
	f, err := Take(context.Background(), dir, time.Minute, func(e error) { told <- e })
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	defer Release(f, dir)
	if len(told) != 0 {
		t.Errorf("onWait called %d more times", len(told))
	}
}

// TestTakeGivesUp: a holder that stays past the wait is ErrLocked
// saying how long it waited; a cancelled context ends the wait with its
// error, not ErrLocked.
func TestTakeGivesUp(t *testing.T) {
	dir := t.TempDir()
	holdDataDir(t, dir)
	_, err := Take(context.Background(), dir, 300*time.Millisecond, nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "waited 300ms") {
		t.Errorf("err = %v, want ErrLocked after waiting 300ms", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Take(ctx, dir, time.Hour, func(error) { cancel() })
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrLocked) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// orphanServer makes dir's lock held by a child posing as the chroma
// server of a cmdai that is gone (its command line says chroma; it holds
// the lock it inherited, as a real server does), and records ownerPID
// with ownerStart as that cmdai. It returns the server's process.
func orphanServer(t *testing.T, dir string, ownerPID int, ownerStart uint64) *exec.Cmd {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	srv := &exec.Cmd{Path: sleep, Args: []string{"chroma", "600"}, ExtraFiles: []*os.File{f}}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close() // the server holds the lock alone now
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	srvStart, ok := procgroup.StartTime(srv.Process.Pid)
	if !ok {
		t.Fatal("no start time of the server")
	}
	rec := fmt.Sprintf("%d %d 1 %d %d\n", ownerPID, srv.Process.Pid, ownerStart, srvStart)
	if err := os.WriteFile(filepath.Join(dir, PIDName), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestOrphanOfAReusedPid: the cmdai that started a private server was
// killed and its pid now names another live process (this test's sleep):
// that process is not the data's owner (its start time differs from the
// one recorded), so the orphaned server is stopped and the lock taken at
// once, the stranger left alone. (Before: the reused pid read as a live
// owner: exit 6 "another cmdai (pid N: sleep 600)", on every run.) The
// same pid with its own start time is a live owner: nothing is stopped.
func TestOrphanOfAReusedPid(t *testing.T) {
	stranger := exec.Command("sleep", "600")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Process.Kill(); stranger.Wait() })
	start, ok := procgroup.StartTime(stranger.Process.Pid)
	if !ok {
		t.Fatal("no start time of the stranger")
	}

	dir := t.TempDir()
	orphanServer(t, dir, stranger.Process.Pid, start)
	_, err := Take(context.Background(), dir, 0, nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", stranger.Process.Pid)) {
		t.Errorf("owner alive (its recorded start time): %v; want ErrLocked naming it", err)
	}

	dir = t.TempDir()
	srv := orphanServer(t, dir, stranger.Process.Pid, start+1)
	f, err := Take(context.Background(), dir, 0, nil)
	if err != nil {
		t.Fatalf("owner's pid reused by another process: %v; want the orphaned server stopped and the lock taken", err)
	}
	Release(f, dir)
	if err := srv.Wait(); err == nil {
		t.Error("the orphaned server was not stopped")
	}
	if !procgroup.Alive(stranger.Process.Pid) {
		t.Error("the stranger that has the dead owner's pid was stopped")
	}
}

// TestLockedSaysItsHolder: a holder's record says what it does, and a
// second taker's ErrLocked carries it (HeldBriefly), as HeldBy does.
func TestLockedSaysItsHolder(t *testing.T) {
	for _, tc := range []struct {
		kind  Kind
		brief bool
	}{{KindRead, true}, {KindServe, true}, {KindSession, false}, {KindWrite, false}} {
		dir := t.TempDir()
		f, err := Take(context.Background(), dir, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		Record(dir, os.Getpid(), 1, tc.kind)
		_, err = Take(context.Background(), dir, 0, nil)
		if !errors.Is(err, ErrLocked) || HeldBriefly(err) != tc.brief {
			t.Errorf("held by %s: %v, briefly %v; want ErrLocked, %v", tc.kind, err, HeldBriefly(err), tc.brief)
		}
		if held, kind := HeldBy(dir); !held || kind != tc.kind {
			t.Errorf("HeldBy: %v %q; want held by %s", held, kind, tc.kind)
		}
		Release(f, dir)
		if held, _ := HeldBy(dir); held {
			t.Errorf("held after Release")
		}
	}
	// an older cmdai's record says no kind: counted as brief
	if !HeldBriefly(ErrLocked) || HeldBriefly(errors.New("other")) {
		t.Error("HeldBriefly of a bare ErrLocked, or of another error")
	}
}
