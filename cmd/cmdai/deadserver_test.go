package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// deadServerURL is a URL where a connection is accepted and closed at
// once: a server that does not answer, on a port of the test's own. (A
// fixed port, such as 9, answers whatever happens to listen there.)
func deadServerURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedPort returns a loopback address where nothing listens: a port the
// kernel just gave out and that was closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
