package main

import (
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
