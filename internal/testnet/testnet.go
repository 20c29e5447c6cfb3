// Package testnet gives tests network addresses with known behaviour, so
// that no test relies on a fixed port (port 9 answers whatever happens to
// listen there).
package testnet

import (
	"net"
	"testing"
)

// ClosedPort returns a loopback address where nothing listens: a port the
// kernel just gave out and that was closed again.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
