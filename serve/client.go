package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve/servelock"
)

// dialTimeout bounds reaching the socket: a serve that does not accept
// within it is treated as absent, and the caller works alone.
const dialTimeout = 2 * time.Second

// Client talks to a running serve over its socket (or its --listen
// address: DialTCP). Safe for concurrent use.
type Client struct {
	socket string
	hc     *http.Client
	// base is the URL the paths go under; token, when set, is sent as
	// "Authorization: Bearer <token>" (TCP).
	base, token string
}

// Dial reaches the serve listening on socketPath and checks its health.
// No socket, a stale one (nobody listening) or a refused connection is
// ErrNotRunning: callers fall back to doing the work themselves.
func Dial(ctx context.Context, socketPath string) (*Client, error) {
	c, err := dialOnce(ctx, socketPath)
	if err == nil || !errors.Is(err, ErrNotRunning) || errors.Is(err, ErrUnresponsive) || !servelock.Starting(socketPath) {
		return c, err
	}
	// A serve holds the lock but does not answer yet: it is starting.
	// Waiting for it beats starting a second Chroma on its data, which
	// the data lock would refuse (exit 6).
	wctx, cancel := context.WithTimeout(ctx, StartWait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-wctx.Done():
			return nil, fmt.Errorf("%w (a serve has been starting for %s on %s: see its output)", ErrNotRunning, StartWait, socketPath)
		case <-tick.C:
		}
		if c, err = dialOnce(wctx, socketPath); err == nil || !errors.Is(err, ErrNotRunning) || errors.Is(err, ErrUnresponsive) || !servelock.Starting(socketPath) {
			return c, err
		}
	}
}

// StartWait bounds how long Dial waits for a starting serve (its model
// loads while its Chroma starts: about 3 s on 2 busy cores).
var StartWait = 20 * time.Second

func dialOnce(ctx context.Context, socketPath string) (*Client, error) {
	if err := servelock.Ours(socketPath); err != nil {
		return nil, fmt.Errorf("%w (no socket of this user at %s: %v)", ErrNotRunning, socketPath, err)
	}
	c := &Client{socket: socketPath, base: "http://cmdai", hc: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d := net.Dialer{Timeout: dialTimeout}
			return d.DialContext(ctx, "unix", socketPath)
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
	}}}
	return c.check(ctx)
}

// DialTCP reaches the serve answering on a --listen address (host:port)
// with its token (guard.ReadToken of config.ServeTokenFile: serve keeps
// it in the data directory) and checks its health: a wrong token is an
// *Error of Status 401. No proxy is used: the token stays on loopback.
func DialTCP(ctx context.Context, addr, token string) (*Client, error) {
	d := &net.Dialer{Timeout: dialTimeout}
	c := &Client{socket: addr, base: "http://" + addr, token: token, hc: &http.Client{Transport: &http.Transport{
		DialContext: d.DialContext, MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second,
	}}}
	return c.check(ctx)
}

// check asks c's serve for its health: c, or an error (c closed).
func (c *Client) check(ctx context.Context) (*Client, error) {
	hctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if _, err := c.Health(hctx); err != nil {
		c.Close()
		var se *Error
		if errors.As(err, &se) {
			return nil, err
		}
		if hctx.Err() != nil && ctx.Err() == nil {
			// it took the connection and said nothing for dialTimeout
			return nil, fmt.Errorf("%w (%s: no health answer within %s)", ErrUnresponsive, c.socket, dialTimeout)
		}
		return nil, fmt.Errorf("%w (%s: %v)", ErrNotRunning, c.socket, err)
	}
	return c, nil
}

// Close drops the client's idle connections.
func (c *Client) Close() {
	if c != nil {
		c.hc.CloseIdleConnections()
	}
}

// Socket is the path (or TCP address) the client talks to.
func (c *Client) Socket() string { return c.socket }

// Query asks POST /v1/query. An error answer is an *Error (with the exit
// code the CLI exits with); a query for an index serve does not hold is
// answer.ErrNotHeld.
func (c *Client) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	var res answer.QueryResult
	body, err := json.Marshal(q)
	if err != nil {
		return res, err
	}
	err = c.do(ctx, http.MethodPost, "/v1/query", body, &res)
	var se *Error
	if errors.As(err, &se) && se.Status == http.StatusMisdirectedRequest {
		return res, fmt.Errorf("%w: %s", answer.ErrNotHeld, se.Message)
	}
	return res, err
}

// Docs asks GET /v1/docs: one command's records, narrowed to a request
// when one is given. A command the index does not hold is an *Error of
// Status 404. strict: when Chroma cannot be reached, its error (exit
// code 4) rather than a degraded doc from disk.
func (c *Client) Docs(ctx context.Context, command, request string, strict bool) (search.CommandDoc, error) {
	var doc search.CommandDoc
	q := url.Values{"command": {command}}
	if request != "" {
		q.Set("request", request)
	}
	if strict {
		q.Set("strict", "true")
	}
	return doc, c.do(ctx, http.MethodGet, "/v1/docs?"+q.Encode(), nil, &doc)
}

// Explain asks POST /v1/explain: the line judged by serve's index. A
// line the shell cannot parse is an *Error of Status 400 (exit code 2);
// a distribution serve does not hold is answer.ErrNotHeld.
func (c *Client) Explain(ctx context.Context, req answer.ExplainRequest) (answer.ExplainResult, error) {
	var res answer.ExplainResult
	body, err := json.Marshal(req)
	if err != nil {
		return res, err
	}
	err = c.do(ctx, http.MethodPost, "/v1/explain", body, &res)
	var se *Error
	if errors.As(err, &se) && se.Status == http.StatusMisdirectedRequest {
		return res, fmt.Errorf("%w: %s", answer.ErrNotHeld, se.Message)
	}
	return res, err
}

// StatusOf asks GET /v1/status with req's parameters (no Env: staleness
// judged against serve's own environment).
func (c *Client) StatusOf(ctx context.Context, req answer.StatusRequest) (answer.IndexStatus, error) {
	var st answer.IndexStatus
	q := url.Values{}
	if req.Detailed {
		q.Set("detailed", "true")
	}
	if req.Env != nil {
		q.Set("path", req.Env.Path)
		q.Set("manpath", req.Env.ManPath)
	}
	path := "/v1/status"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return st, c.do(ctx, http.MethodGet, path, nil, &st)
}

// Health asks GET /v1/health.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	return h, c.do(ctx, http.MethodGet, "/v1/health", nil, &h)
}

// LeaseHolder is a held write lease: Close ends it, and serve reloads.
type LeaseHolder struct {
	Lease
	body io.Closer
	c    *Client
}

// Close ends the lease.
func (l *LeaseHolder) Close() error {
	if l == nil || l.body == nil {
		return nil
	}
	err := l.body.Close()
	l.body = nil
	// the lease's connection must close, not go back to the pool
	l.c.hc.CloseIdleConnections()
	return err
}

// Lease takes the write lease, waiting for the queries in flight (and a
// previous writer) to finish. It lasts until Close, or the process's end.
func (c *Client) Lease(ctx context.Context, read bool) (*LeaseHolder, error) {
	path := "/v1/lease"
	if read {
		path += "?read=true"
	}
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Close = true
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("take serve's write lease on %s: %w", c.socket, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	l := &LeaseHolder{body: resp.Body, c: c}
	if err := json.NewDecoder(resp.Body).Decode(&l.Lease); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("read serve's write lease: %w", err)
	}
	return l, nil
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("ask cmdai serve (%s): %w", c.socket, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("read cmdai serve's answer (%s): %w", c.socket, err)
	}
	return nil
}

// decodeError reads an error answer into an *Error.
func decodeError(resp *http.Response) error {
	var b jsonout.Error
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&b); err != nil || b.Error == "" {
		return &Error{Status: resp.StatusCode, Message: fmt.Sprintf("cmdai serve answered %s", resp.Status), ExitCode: 1}
	}
	return &Error{Status: resp.StatusCode, Message: b.Error, ExitCode: b.ExitCode}
}
