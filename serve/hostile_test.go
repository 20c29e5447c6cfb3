package serve

// Hostile clients of serve's TCP listener and socket: what a web page, a
// DNS-rebinding page, another local program or a broken client sends,
// and the JSON error each gets.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/serve/servelock"
)

// startTCP runs a Server of b with opts (its Listen 127.0.0.1:0 unless
// set) until the test ends; it returns the socket, the TCP address and
// Run's result.
func startTCP(t *testing.T, b Backend, opts Options) (socket, addr string, done <-chan error) {
	t.Helper()
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	dir, err := os.MkdirTemp("", "srv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket = filepath.Join(dir, "cmdai.sock")
	l, err := servelock.Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	opts.Ready = func(_ string, tcp net.Addr) { ready <- tcp.String() }
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	stopped := make(chan struct{})
	go func() { ch <- New(b, opts).Run(ctx, l); l.Release(); close(stopped) }()
	t.Cleanup(func() { cancel(); <-stopped })
	select {
	case addr = <-ready:
	case err := <-ch:
		t.Fatalf("serve: %v", err)
	}
	return socket, addr, ch
}

// tcpReq is one request to addr as a client crafts it: hdr may set Host
// (the "Host" key) and any other header, nothing else is added but what
// net/http must.
func tcpReq(t *testing.T, addr, method, path string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body, req.ContentLength = nil, 0
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	hc := http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// jsonError checks body is serve's error object with exit code 2 and
// want in its message.
func jsonError(t *testing.T, what, body, want string) {
	t.Helper()
	var e jsonout.Error
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.ExitCode != 2 || !strings.Contains(e.Error, want) {
		t.Errorf("%s: body %q; want the JSON error object, exit_code 2, saying %q", what, body, want)
	}
}

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

var query = `{"request": "find files"}`

// TestTCPNeedsToken: over TCP, a request without the token, with a wrong
// one or another scheme is 401 with the JSON error (health too: it names
// Chroma's URL and the data directory); the token opens every endpoint,
// and serve's Go client sends it (DialTCP).
func TestTCPNeedsToken(t *testing.T) {
	_, addr, _ := startTCP(t, &fakeBackend{}, Options{Token: testToken})
	jh := map[string]string{"Content-Type": "application/json"}
	for _, auth := range []string{"", "Bearer ", "Bearer wrong", "Bearer " + testToken[:63], "Basic " + testToken, testToken} {
		hdr := map[string]string{"Content-Type": "application/json"}
		if auth != "" {
			hdr["Authorization"] = auth
		}
		for _, r := range []struct{ method, path, body string }{
			{"POST", "/v1/query", query}, {"GET", "/v1/docs?command=find", ""}, {"POST", "/v1/explain", `{"line": "ls"}`},
			{"GET", "/v1/status", ""}, {"GET", "/v1/health", ""},
		} {
			status, h, body := tcpReq(t, addr, r.method, r.path, hdr, r.body)
			if status != 401 || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %s with Authorization %q: %d %s; want 401 asking for a bearer token", r.method, r.path, auth, status, body)
			}
			jsonError(t, r.method+" "+r.path, body, "Authorization: Bearer")
			if strings.Contains(body, "chroma_url") || strings.Contains(body, "/data") {
				t.Errorf("a 401 tells where Chroma or the data is: %s", body)
			}
		}
	}
	jh["Authorization"] = "bearer " + testToken // the scheme is case-insensitive
	if status, _, body := tcpReq(t, addr, "POST", "/v1/query", jh, query); status != 200 || !strings.Contains(body, `"command":"find"`) {
		t.Errorf("query with the token: %d %s", status, body)
	}
	c, err := DialTCP(context.Background(), addr, testToken)
	if err != nil {
		t.Fatalf("DialTCP with the token: %v", err)
	}
	defer c.Close()
	if h, err := c.Health(context.Background()); err != nil || h.ChromaURL == "" || h.DataDir != "/data" {
		t.Errorf("health with the token: %+v %v; want all of it", h, err)
	}
	if res, err := c.Query(context.Background(), answer.QueryRequest{Request: "find files", K: 1}); err != nil || len(res.Commands) != 1 {
		t.Errorf("query through DialTCP: %+v %v", res, err)
	}
	var se *Error
	if _, err := DialTCP(context.Background(), addr, "wrong"); !errors.As(err, &se) || se.Status != 401 {
		t.Errorf("DialTCP with a wrong token: %v; want a 401 *Error", err)
	}
}

// TestTCPRefusesWebPages: a Host that does not name the listener (DNS
// rebinding: evil.example resolving to 127.0.0.1), a foreign Origin or a
// browser's cross-site fetch is 403 whatever the token; a POST body not
// sent as application/json (a page's text/plain POST needs no preflight)
// is 415. The listener's own names pass.
func TestTCPRefusesWebPages(t *testing.T) {
	_, addr, _ := startTCP(t, &fakeBackend{}, Options{Token: testToken})
	_, port, _ := net.SplitHostPort(addr)
	ok := func() map[string]string {
		return map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + testToken}
	}
	for _, c := range []struct {
		name, key, val string
		status         int
		want           string
	}{
		{"rebinding", "Host", "evil.example:" + port, 403, "is not this serve's"},
		{"rebinding, no port", "Host", "evil.example", 403, "is not this serve's"},
		{"another port", "Host", "127.0.0.1:1", 403, "is not this serve's"},
		{"foreign origin", "Origin", "http://evil.example", 403, "another origin"},
		{"null origin", "Origin", "null", 403, "another origin"},
		{"same host, other port", "Origin", "http://127.0.0.1:1", 403, "another origin"},
		{"cross-site fetch", "Sec-Fetch-Site", "cross-site", 403, "cross-site"},
		{"text/plain POST", "Content-Type", "text/plain", 415, "application/json"},
		{"form POST", "Content-Type", "application/x-www-form-urlencoded", 415, "application/json"},
		{"no content type", "Content-Type", "", 415, "application/json"},
		{"localhost", "Host", "localhost:" + port, 200, ""},
		{"LOCALHOST", "Host", "LOCALHOST:" + port, 200, ""},
		{"[::1]", "Host", "[::1]:" + port, 200, ""},
		{"own origin", "Origin", "http://127.0.0.1:" + port, 200, ""},
		{"localhost origin", "Origin", "http://localhost:" + port, 200, ""},
		{"same-origin fetch", "Sec-Fetch-Site", "same-origin", 200, ""},
		{"json with charset", "Content-Type", "application/json; charset=utf-8", 200, ""},
	} {
		hdr := ok()
		hdr[c.key] = c.val
		if c.val == "" {
			delete(hdr, c.key)
		}
		status, _, body := tcpReq(t, addr, "POST", "/v1/query", hdr, query)
		if status != c.status {
			t.Errorf("%s (%s: %q): %d %s; want %d", c.name, c.key, c.val, status, body, c.status)
		}
		if c.status != 200 {
			jsonError(t, c.name, body, c.want)
		}
	}
	// a browser's GET carries no body: the Host check still holds
	if status, _, body := tcpReq(t, addr, "GET", "/v1/health", map[string]string{"Host": "evil.example:" + port, "Authorization": "Bearer " + testToken}, ""); status != 403 {
		t.Errorf("health with a rebinding Host: %d %s; want 403", status, body)
	}
}

// TestTCPNoAuth: --listen needs a token unless the user opted out; opted
// out, requests need none, health says only ok/writing/degraded (no
// Chroma URL, data directory or pid), and web pages stay refused. The
// socket keeps the whole health, and its POSTs need no content type
// (curl -d).
func TestTCPNoAuth(t *testing.T) {
	dir := t.TempDir()
	l, err := servelock.Acquire(filepath.Join(dir, "cmdai.sock"))
	if err != nil {
		t.Fatal(err)
	}
	err = New(&fakeBackend{}, Options{Listen: "127.0.0.1:0"}).Run(context.Background(), l)
	l.Release()
	if err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("--listen without a token or the opt-out: %v; want refused", err)
	}

	socket, addr, _ := startTCP(t, &fakeBackend{}, Options{InsecureNoAuth: true})
	jh := map[string]string{"Content-Type": "application/json"}
	if status, _, body := tcpReq(t, addr, "POST", "/v1/query", jh, query); status != 200 {
		t.Errorf("query without a token, opted out: %d %s", status, body)
	}
	status, _, body := tcpReq(t, addr, "GET", "/v1/health", nil, "")
	var h map[string]any
	if err := jsonDecode(body, &h); status != 200 || err != nil || h["ok"] != true || len(h) != 3 {
		t.Errorf("health over TCP without a token: %d %s; want only schema_version, ok and writing", status, body)
	}
	jh["Origin"] = "http://evil.example"
	if status, _, body := tcpReq(t, addr, "POST", "/v1/query", jh, query); status != 403 {
		t.Errorf("a web page's query, opted out: %d %s; want 403", status, body)
	}
	if hh, err := dial(t, socket).Health(context.Background()); err != nil || hh.DataDir != "/data" || hh.PID == 0 {
		t.Errorf("health on the socket: %+v %v; want all of it", hh, err)
	}
	if status, body := postAs(t, socket, "/v1/query", "application/x-www-form-urlencoded", query); status != 200 {
		t.Errorf("curl -d on the socket: %d %s", status, body)
	}
}

func jsonDecode(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// postAs posts body to the socket as contentType.
func postAs(t *testing.T, socket, path, contentType, body string) (int, string) {
	t.Helper()
	hc := http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return net.Dial("unix", socket)
	}}}
	resp, err := hc.Post("http://cmdai"+path, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthMethods: /v1/health takes GET and HEAD only; PUT, TRACE and
// the like are 405 with Allow and the JSON error, on the socket and over
// TCP; every endpoint's 405 says its methods.
func TestHealthMethods(t *testing.T) {
	socket, addr, _ := startTCP(t, &fakeBackend{}, Options{Token: testToken})
	auth := map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "application/json"}
	for _, m := range []string{"PUT", "TRACE", "DELETE", "PATCH", "OPTIONS", "CONNECT"} {
		for _, over := range []string{"socket", "tcp"} {
			var status int
			var h http.Header
			var body string
			if over == "socket" {
				status, h, body = rawSocket(t, socket, m+" /v1/health HTTP/1.1\r\nHost: cmdai\r\nContent-Length: 0\r\n\r\n")
			} else {
				status, h, body = tcpReq(t, addr, m, "/v1/health", auth, "")
			}
			if status != 405 || h.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s /v1/health on the %s: %d Allow %q %s; want 405, Allow: GET, HEAD", m, over, status, h.Get("Allow"), body)
			}
			jsonError(t, m+" /v1/health", body, "takes GET, HEAD")
		}
	}
	if status, _, body := rawSocket(t, socket, "HEAD /v1/health HTTP/1.1\r\nHost: cmdai\r\n\r\n"); status != 200 || body != "" {
		t.Errorf("HEAD /v1/health: %d %q; want 200 without a body", status, body)
	}
	if status, h, body := rawSocket(t, socket, "GET /v1/query HTTP/1.1\r\nHost: cmdai\r\n\r\n"); status != 405 || h.Get("Allow") != "POST" {
		t.Errorf("GET /v1/query: %d %v %s; want 405, Allow: POST", status, h, body)
	}
}

// rawSocket sends req as it is on the socket and reads one answer.
func rawSocket(t *testing.T, socket, req string) (int, http.Header, string) {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return rawAnswer(t, c, req)
}

func rawAnswer(t *testing.T, c net.Conn, req string) (int, http.Header, string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(c, req) // a 431 may come before the whole request is sent
	method, _, _ := strings.Cut(req, " ")
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("read the answer to %.40q: %v", req, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestNetHTTPErrorsAreJSON: the answers net/http writes itself, before a
// handler runs (headers over the limit: 431; a request line it cannot
// parse: 400; an unknown transfer encoding: 501), are serve's JSON error
// object too, on the socket and over TCP.
func TestNetHTTPErrorsAreJSON(t *testing.T) {
	socket, addr, _ := startTCP(t, &fakeBackend{}, Options{Token: testToken})
	big := "GET /v1/health HTTP/1.1\r\nHost: cmdai\r\nX-Big: " + strings.Repeat("a", 100<<10) + "\r\n\r\n"
	for _, c := range []struct {
		name, req, want string
		status          int
	}{
		{"headers over 64 KiB", big, "over 64 KiB", 431},
		{"garbage", "BLAH\r\n\r\n", "Bad Request", 400},
		{"no Host", "GET /v1/health HTTP/1.1\r\n\r\n", "missing required Host header", 400},
		{"transfer encoding", "POST /v1/query HTTP/1.1\r\nHost: cmdai\r\nTransfer-Encoding: gzip\r\n\r\n", "Unsupported transfer encoding", 501},
	} {
		for _, over := range []string{"socket", "tcp"} {
			network, where := "unix", socket
			if over == "tcp" {
				network, where = "tcp", addr
			}
			conn, err := net.Dial(network, where)
			if err != nil {
				t.Fatal(err)
			}
			status, h, body := rawAnswer(t, conn, c.req)
			conn.Close()
			if status != c.status || h.Get("Content-Type") != "application/json" {
				t.Errorf("%s on the %s: %d %s %q; want %d, application/json", c.name, over, status, h.Get("Content-Type"), body, c.status)
			}
			jsonError(t, c.name+" on the "+over, body, c.want)
		}
	}
	// serve goes on
	if status, body := get(t, socket, "/v1/health"); status != 200 {
		t.Errorf("health after: %d %s", status, body)
	}
}

// TestDocsCommandControlChars: a command name with a NUL, another
// control character or an invisible format character is 400, saying what
// a name may hold, before the backend is asked.
func TestDocsCommandControlChars(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	for _, name := range []string{"fi%00nd", "%00", "find%1b%5b31m", "find%7f", "fi%c2%85nd", "find%e2%80%ae", "fi%0bnd"} {
		status, body := get(t, socket, "/v1/docs?command="+name)
		if status != 400 {
			t.Errorf("docs of %s: %d %s; want 400", name, status, body)
		}
		jsonError(t, "docs of "+name, body, "printable characters")
	}
}
