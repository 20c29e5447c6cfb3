package main

// `cmdai serve --listen` as hostile clients find it, with the real Chroma
// server and model: the token, the checks against web pages, and what is
// refused before anything starts.

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/guard"
)

// listenServe starts `cmdai serve --distro debian-12 --listen
// 127.0.0.1:0` in a child process and waits for its TCP address; log
// reads what it printed so far. The child is stopped when the test ends.
func listenServe(t *testing.T, extra ...string) (cmd *exec.Cmd, addr string, log func() string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd = exec.Command(exe, "-test.run=^$")
	args := append([]string{"serve", "--distro", "debian-12", "--listen", "127.0.0.1:0"}, extra...)
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI="+strings.Join(args, "\n"))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var mu sync.Mutex
	var buf strings.Builder
	log = func() string { mu.Lock(); defer mu.Unlock(); return buf.String() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			buf.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := regexp.MustCompile(`and http://(127\.0\.0\.1:[0-9]+)`).FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case addr = <-found:
	case <-time.After(90 * time.Second):
	}
	if addr == "" {
		t.Fatalf("serve --listen did not say its address: %s", log())
	}
	return cmd, addr, log
}

// tcpAsk sends one request to serve's TCP address with these headers
// ("Host" sets the Host) and returns the status and body.
func tcpAsk(t *testing.T, addr, method, path string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	hc := http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 60 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeListenHostileClients: `serve --listen` makes a token on first
// use (shown once, kept 0600 in the data home) and answers only clients
// that send it; a web page's text/plain POST, a DNS-rebinding Host, a
// foreign Origin, health without the token, PUT on health, a NUL in a
// command name and oversize headers each get their JSON error; cmdai's
// Go client reads the token from the data home and is answered. A second
// serve uses the same token and does not show it.
func TestServeListenHostileClients(t *testing.T) {
	smallIndex(t)
	cmd, addr, log := listenServe(t)
	tokenFile, err := config.ServeTokenFile(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	token, err := guard.ReadToken(tokenFile)
	if err != nil {
		t.Fatalf("serve --listen kept no token: %v\n%s", err, log())
	}
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: %v %v; want mode 0600", tokenFile, fi.Mode(), err)
	}
	if !strings.Contains(log(), token) {
		t.Errorf("the new token was not shown: %s", log())
	}
	_, port, _ := net.SplitHostPort(addr)
	query := `{"request": "twiddle the bits of a file", "k": 1}`
	auth := "Bearer " + token
	for _, c := range []struct {
		name, method, path string
		hdr                map[string]string
		body               string
		status             int
		want               string
	}{
		{"a page's text/plain POST", "POST", "/v1/query", map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, query, 403, "another origin"},
		{"text/plain, no token", "POST", "/v1/query", map[string]string{"Content-Type": "text/plain"}, query, 401, "Authorization: Bearer"},
		{"JSON, no token", "POST", "/v1/query", map[string]string{"Content-Type": "application/json"}, query, 401, "Authorization: Bearer"},
		{"wrong token", "POST", "/v1/query", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + strings.Repeat("0", len(token))}, query, 401, "Authorization: Bearer"},
		{"text/plain with the token", "POST", "/v1/query", map[string]string{"Content-Type": "text/plain", "Authorization": auth}, query, 415, "application/json"},
		{"DNS rebinding", "GET", "/v1/status", map[string]string{"Host": "rebind.evil.example:" + port, "Authorization": auth}, "", 403, "is not this serve's"},
		{"foreign origin", "POST", "/v1/query", map[string]string{"Content-Type": "application/json", "Authorization": auth, "Origin": "http://evil.example"}, query, 403, "another origin"},
		{"health, no token", "GET", "/v1/health", nil, "", 401, "Authorization: Bearer"},
		{"PUT health", "PUT", "/v1/health", map[string]string{"Authorization": auth}, "", 405, "takes GET, HEAD"},
		{"TRACE health", "TRACE", "/v1/health", map[string]string{"Authorization": auth}, "", 405, "takes GET, HEAD"},
		{"NUL in a name", "GET", "/v1/docs?command=fr%00ob", map[string]string{"Authorization": auth}, "", 400, "printable characters"},
		{"headers over 64 KiB", "GET", "/v1/health", map[string]string{"Authorization": auth, "X-Big": strings.Repeat("a", 100<<10)}, "", 431, "over 64 KiB"},
		{"the user's client", "POST", "/v1/query", map[string]string{"Content-Type": "application/json", "Authorization": auth}, query, 200, `"command":"frob"`},
	} {
		status, body := tcpAsk(t, addr, c.method, c.path, c.hdr, c.body)
		if status != c.status || !strings.Contains(body, c.want) || (status != 200 && !strings.Contains(body, `"exit_code":2`)) {
			t.Errorf("%s: %d %s; want %d, the JSON error saying %q", c.name, status, body, c.status, c.want)
		}
		if c.status != 200 && (strings.Contains(body, "chroma_url") || strings.Contains(body, os.Getenv("CMDAI_HOME"))) {
			t.Errorf("%s: the refusal tells where Chroma or the data is: %s", c.name, body)
		}
	}
	c, err := serve.DialTCP(context.Background(), addr, token)
	if err != nil {
		t.Fatalf("DialTCP with the data home's token: %v", err)
	}
	res, err := c.Query(context.Background(), answerlayer.QueryRequest{Request: "twiddle the bits of a file", K: 1})
	c.Close()
	if err != nil || len(res.Commands) != 1 || res.Commands[0].Command != "frob" {
		t.Errorf("query through DialTCP: %+v %v", res, err)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	_, _, log2 := listenServe(t)
	if again, err := guard.ReadToken(tokenFile); err != nil || again != token {
		t.Errorf("second serve's token: %q %v; want the first one kept", again, err)
	}
	if strings.Contains(log2(), token) || !strings.Contains(log2(), tokenFile) {
		t.Errorf("second serve's log shows the token again, or not where it is: %s", log2())
	}
}

// TestServeListenRefusedBeforeStart: a --listen address that is not
// loopback, a port in use, the opt-out without --listen and a token file
// others may read are refused before serve starts Chroma or loads the
// model: quickly, and no Chroma data appears in an empty home.
func TestServeListenRefusedBeforeStart(t *testing.T) {
	realEnv(t)
	home := os.Getenv("CMDAI_HOME")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		name  string
		args  []string
		setup func()
		code  int
		want  string
	}{
		{"every interface", []string{"--listen", "0.0.0.0:8765"}, nil, 2, "only a loopback address"},
		{"no port", []string{"--listen", "127.0.0.1"}, nil, 2, "127.0.0.1:PORT"},
		{"opt-out alone", []string{"--listen-insecure-no-auth"}, nil, 2, "goes with --listen"},
		{"port in use", []string{"--listen", busy.Addr().String()}, nil, 1, "address already in use"},
		{"token others may read", []string{"--listen", "127.0.0.1:0"}, func() {
			tok := filepath.Join(home, "serve.token")
			os.Remove(tok)
			os.WriteFile(tok, []byte("abc\n"), 0o644)
			os.Chmod(tok, 0o644)
		}, 1, "chmod 600"},
	} {
		if c.setup != nil {
			c.setup()
		}
		start := time.Now()
		code, stderr := refusedCLI(t, 60*time.Second, append([]string{"serve", "--distro", "debian-12"}, c.args...)...)
		took := time.Since(start)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d %q; want %d saying %q", c.name, code, stderr, c.code, c.want)
		}
		if c.name == "port in use" {
			if _, err := os.Stat(filepath.Join(home, "serve.token")); !os.IsNotExist(err) {
				t.Errorf("a port in use made a token: %v", err)
			}
		}
		if _, err := os.Stat(filepath.Join(home, "chroma")); !os.IsNotExist(err) || took > 5*time.Second {
			t.Errorf("%s: Chroma's data dir: %v, after %s; want nothing started", c.name, err, took)
		}
	}
}

// refusedCLI runs cmdai args in a child process (TestMain's CMDAI_TEST_CLI),
// killed after limit (exit -1): a serve that should have refused to start
// must not hang the test.
func refusedCLI(t *testing.T, limit time.Duration, args ...string) (code int, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	exe, _ := os.Executable()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI="+strings.Join(args, "\n"))
	var errOut strings.Builder
	cmd.Stderr = &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, errOut.String()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), errOut.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, errOut.String()
}
