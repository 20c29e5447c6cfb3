package guard

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"

	"github.com/cmdai/cmdai/internal/jsonout"
)

// Listener wraps ln so that the replies net/http writes itself, before
// any handler runs, are serve's JSON error object like every other
// answer: 431 for headers over http.Server.MaxHeaderBytes (tooLarge
// says what to do then), 400 for a request it cannot parse, 501 for a
// transfer encoding it does not know. net/http writes those straight to
// the connection in one write, as text/plain with no Date header (which
// every answer of a handler has), and closes it: that one write is
// replaced.
func Listener(ln net.Listener, tooLarge string) net.Listener {
	return listener{ln, tooLarge}
}

type listener struct {
	net.Listener
	tooLarge string
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	if cw, ok := c.(closeWriter); ok {
		return &conn{Conn: c, cw: cw, tooLarge: l.tooLarge}, nil
	}
	return &conn{Conn: c, tooLarge: l.tooLarge}, nil
}

// closeWriter is what net/http uses, when the connection has it, to
// half-close after a 431 so that the client reads the reply.
type closeWriter interface{ CloseWrite() error }

type conn struct {
	net.Conn
	cw       closeWriter
	tooLarge string
}

func (c *conn) CloseWrite() error {
	if c.cw == nil {
		return nil
	}
	return c.cw.CloseWrite()
}

// plainError is net/http's own error reply (server.go, conn.serve):
// status line, exactly these two headers, the body.
var plainError = regexp.MustCompile(`\AHTTP/1\.1 ([1-5][0-9][0-9]) ([^\r\n]*)\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n([^\r\n]*)\z`)

func (c *conn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return c.Conn.Write(p)
	}
	m := plainError.FindSubmatch(p)
	if m == nil {
		return c.Conn.Write(p)
	}
	status, _ := strconv.Atoi(string(m[1]))
	msg := "bad HTTP request: " + string(m[3])
	if status == http.StatusRequestHeaderFieldsTooLarge {
		msg = c.tooLarge
	}
	body, _ := jsonout.Marshal(jsonout.Error{Error: msg, ExitCode: 2})
	body = append(body, '\n')
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n", status, http.StatusText(status), len(body))
	if _, err := c.Conn.Write(append([]byte(head), body...)); err != nil {
		return 0, err
	}
	return len(p), nil
}
