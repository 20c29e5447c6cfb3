package chroma

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cmdai/cmdai/internal/netwait"
)

// socketScheme starts the address of a server reached through a unix
// socket: the private server, which listens on a socket in its data
// directory so that no other local user can reach it (a loopback port is
// open to every user of the machine, and Chroma's own auth is a no-op).
// The address is written unix://PATH, PATH absolute; a server at a URL
// (--chroma-url) is reached over HTTP as before.
const socketScheme = "unix://"

// SocketAddress is the address of a server listening on the unix socket
// at path.
func SocketAddress(path string) string { return socketScheme + path }

// SocketPath is the socket of a unix:// address, ok false for a URL.
func SocketPath(addr string) (string, bool) {
	p, ok := strings.CutPrefix(addr, socketScheme)
	return p, ok && filepath.IsAbs(p)
}

// socketBase is the URL requests to a socket are written against: the
// host part is never dialled (the transport dials the socket).
const socketBase = "http://chroma.local"

// HTTPClient returns the base URL to write requests against and a client
// that reaches addr: an http(s) URL through the network, a unix://
// address through its socket. Each request is bounded by timeout as a
// whole.
func HTTPClient(addr string, timeout time.Duration) (string, *http.Client) {
	hc := netwait.NewClient(timeout)
	hc.Timeout = timeout
	path, ok := SocketPath(addr)
	if !ok {
		return strings.TrimRight(addr, "/"), hc
	}
	t := hc.Transport.(*http.Transport)
	t.Proxy = nil
	t.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) { return dialSocket(ctx, path) }
	return socketBase, hc
}

// maxSocketPath is the longest socket path connect(2) takes on Linux
// (sun_path holds 108 bytes, one of them the NUL; 104 on the BSDs).
const maxSocketPath = 103

// dialSocket reaches the jailed server through the unix socket at path:
// its relay (lean.py) answers each connection with a TCP connection to
// the server inside its network namespace (SCM_RIGHTS), which is then
// used as it is: the relay copies no byte of any request.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	c, err := dialUnix(ctx, path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(netwait.ConnectTimeout)
	}
	_ = uc.SetReadDeadline(deadline)
	buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(4*4))
	_, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, fmt.Errorf("socket %s handed over no connection: %w", path, err)
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for i := range msgs {
			if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if len(fds) == 0 {
		return nil, fmt.Errorf("socket %s handed over no connection (the server is starting, or stopped)", path)
	}
	for _, fd := range fds[1:] {
		unix.Close(fd)
	}
	f := os.NewFile(uintptr(fds[0]), "chroma")
	defer f.Close()
	return net.FileConn(f)
}

// dialUnix connects to the unix socket at path.
func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	return shortName(path, func(name string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", name)
	})
}

// shortName calls use with a name for the socket at path that bind(2)
// and connect(2) take: path itself, or, when it is longer than a socket
// path may be (a data directory deep in a test's temporary directory, a
// long home), /proc/self/fd/N/NAME, N a descriptor of its directory kept
// open while use runs: a short name for the same file on Linux.
func shortName[T any](path string, use func(name string) (T, error)) (T, error) {
	if len(path) <= maxSocketPath {
		return use(path)
	}
	var zero T
	dir, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return zero, &os.PathError{Op: "open socket directory", Path: filepath.Dir(path), Err: err}
	}
	defer unix.Close(dir)
	short := fmt.Sprintf("/proc/self/fd/%d/%s", dir, filepath.Base(path))
	if len(short) > maxSocketPath {
		return zero, fmt.Errorf("socket %s: name too long", path)
	}
	return use(short)
}
