package config

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// blockingRead makes reading the configuration file hang (a hung
// network mount) until the test ends.
func blockingRead(t *testing.T) {
	release := make(chan struct{})
	old := readFile
	readFile = func(string) ([]byte, error) { <-release; return nil, errors.New("released") }
	t.Cleanup(func() { close(release); readFile = old })
}

// TestLoadContextEndsOnASignal: a read that hangs does not hold the run
// when a signal ends its context: LoadContext returns at once with the
// context's cause (the signal, which sets the exit code).
func TestLoadContextEndsOnASignal(t *testing.T) {
	blockingRead(t)
	cause := errors.New("SIGTERM")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel(cause) }()
	start := time.Now()
	_, err := LoadContext(ctx, env(map[string]string{EnvConfig: "/mnt/hung/config.yaml"}))
	if !errors.Is(err, cause) || time.Since(start) > 5*time.Second {
		t.Errorf("LoadContext: %v after %s, want the signal's cause at once", err, time.Since(start))
	}
}

// TestLoadContextHasADeadline: a read that hangs with no signal ends at
// ReadTimeout with an error naming the file and what to do.
func TestLoadContextHasADeadline(t *testing.T) {
	blockingRead(t)
	old := ReadTimeout
	ReadTimeout = 200 * time.Millisecond
	t.Cleanup(func() { ReadTimeout = old })
	_, err := LoadContext(context.Background(), env(map[string]string{EnvConfig: "/mnt/hung/config.yaml"}))
	if err == nil || !strings.Contains(err.Error(), "/mnt/hung/config.yaml") || !strings.Contains(err.Error(), "not read within") {
		t.Errorf("LoadContext: %v, want the deadline's error", err)
	}
}
