// Package netwait bounds every network wait cmdai makes: one HTTP client
// constructor with connect, TLS and response-header timeouts, and a body
// reader that gives up when no byte arrives for a while. Downloads (index
// tarballs, the model) and Chroma calls share them, so none can hang.
package netwait

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a download may go without a byte.
const DefaultIdleTimeout = 30 * time.Second

// ConnectTimeout bounds establishing a TCP connection.
const ConnectTimeout = 15 * time.Second

// NewClient returns an HTTP client whose connect, TLS handshake and
// response-header waits are bounded by idle (DefaultIdleTimeout when 0),
// and whose dial is bounded by ConnectTimeout. It sets no overall timeout:
// a large file on a slow link takes what it takes, and a stalled body is
// cut by IdleReader instead.
func NewClient(idle time.Duration) *http.Client {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	dialer := &net.Dialer{Timeout: min(ConnectTimeout, idle), KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   min(15*time.Second, idle),
		ResponseHeaderTimeout: idle,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// ErrIdle means no byte arrived within the idle timeout.
var ErrIdle = errors.New("no data")

// IdleError says how long the body was silent.
type IdleError struct{ After time.Duration }

func (e *IdleError) Error() string { return fmt.Sprintf("no data for %s", e.After) }

// Is makes errors.Is(err, ErrIdle) true.
func (e *IdleError) Is(target error) bool { return target == ErrIdle }

// IdleReader reads body and calls cancel (the request's context cancel)
// when no byte arrives for timeout, so that a server that sends headers
// and then stalls ends the read with an *IdleError instead of blocking
// forever. Close stops its timer.
type IdleReader struct {
	body    io.Reader
	timeout time.Duration
	timer   *time.Timer
	mu      sync.Mutex
	fired   bool
}

// NewIdleReader starts the idle timer; cancel must abort the read in
// progress (cancel the request's context).
func NewIdleReader(body io.Reader, timeout time.Duration, cancel context.CancelFunc) *IdleReader {
	if timeout <= 0 {
		timeout = DefaultIdleTimeout
	}
	r := &IdleReader{body: body, timeout: timeout}
	r.timer = time.AfterFunc(timeout, func() {
		r.mu.Lock()
		r.fired = true
		r.mu.Unlock()
		cancel()
	})
	return r
}

func (r *IdleReader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	r.mu.Lock()
	fired := r.fired
	if n > 0 && !fired {
		r.timer.Reset(r.timeout) // a byte arrived: the silence starts again
	}
	r.mu.Unlock()
	if fired && err != nil && !errors.Is(err, io.EOF) {
		return n, &IdleError{After: r.timeout}
	}
	return n, err
}

// Close stops the timer.
func (r *IdleReader) Close() error {
	r.timer.Stop()
	return nil
}

// ErrNetwork marks a failure to reach a server or to receive from it (as
// opposed to the server answering with an error): callers map it to
// "unreachable".
var ErrNetwork = errors.New("network failure")

type networkError struct{ err error }

func (e *networkError) Error() string        { return e.err.Error() }
func (e *networkError) Unwrap() error        { return e.err }
func (e *networkError) Is(target error) bool { return target == ErrNetwork }

// Network marks err (nil stays nil) as a network failure, keeping its
// text and chain.
func Network(err error) error {
	if err == nil {
		return nil
	}
	return &networkError{err: err}
}
