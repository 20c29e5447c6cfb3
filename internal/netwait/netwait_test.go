package netwait

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// blockingBody gives its data, then blocks until ctx ends, as a stalled
// HTTP body does until its request is cancelled.
type blockingBody struct {
	ctx  context.Context
	data io.Reader
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if n, err := b.data.Read(p); n > 0 || !errors.Is(err, io.EOF) {
		return n, err
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

// TestIdleReader: a body that stops sending ends with an *IdleError once
// the timeout passes (its request cancelled), after the bytes it did send.
func TestIdleReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := NewIdleReader(&blockingBody{ctx: ctx, data: strings.NewReader("hello")}, 200*time.Millisecond, cancel)
	defer r.Close()
	done := make(chan struct{})
	var got []byte
	var err error
	go func() { got, err = io.ReadAll(r); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still reading 10 s after the body stalled")
	}
	var idle *IdleError
	if string(got) != "hello" || !errors.As(err, &idle) || !errors.Is(err, ErrIdle) || idle.After != 200*time.Millisecond {
		t.Errorf("got %q, %v; want hello and an idle error after 200ms", got, err)
	}
	if err.Error() != "no data for 200ms" {
		t.Errorf("message %q", err)
	}
}

// TestNetworkMark: Network keeps the text and chain and adds ErrNetwork.
func TestNetworkMark(t *testing.T) {
	base := errors.New("connection refused")
	err := Network(base)
	if !errors.Is(err, ErrNetwork) || !errors.Is(err, base) || err.Error() != base.Error() || Network(nil) != nil {
		t.Errorf("Network(%v) = %v", base, err)
	}
}
