package testnet

import (
	"net"
	"testing"
	"time"
)

func TestClosedPortRefuses(t *testing.T) {
	addr := ClosedPort(t)
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("a connection to %s was accepted", addr)
	}
}
