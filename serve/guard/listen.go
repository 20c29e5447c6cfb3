package guard

import (
	"fmt"
	"net"
)

// CheckListen says what is wrong with a --listen address (nil: nothing):
// it must be a loopback host and a port. Its only protection from the
// network is a token in a file; it is not meant to reach the network.
func CheckListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %w (use 127.0.0.1:PORT)", addr, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--listen %q: only a loopback address is allowed (serve is for this machine's programs): use 127.0.0.1:PORT", addr)
	}
	return nil
}

// ListenTCP binds a --listen address, after CheckListen.
func ListenTCP(addr string) (net.Listener, error) {
	if err := CheckListen(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	return ln, nil
}
