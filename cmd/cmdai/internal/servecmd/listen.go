package servecmd

import (
	"fmt"
	"net"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve/guard"
)

// checkListen refuses a bad --listen (not loopback, no port) or an
// opt-out without it: a usage error, before serve starts anything.
func checkListen(opts *ServeOptions) error {
	if opts.InsecureNoAuth && opts.Listen == "" {
		return cmdutil.UsageError("--listen-insecure-no-auth goes with --listen ADDR: without it serve answers only on its socket")
	}
	if opts.Listen == "" {
		return nil
	}
	if err := guard.CheckListen(opts.Listen); err != nil {
		return cmdutil.UsageError("%v", err)
	}
	return nil
}

// tcpSetup gets --listen ready before Chroma or the model start: the
// token (made and shown once when the data home has none) and the bound
// port, so that a port in use or an unwritable data home costs nothing.
// No --listen: nil, "".
func tcpSetup(opts *ServeOptions, logf func(string, ...any)) (net.Listener, string, error) {
	if opts.Listen == "" {
		return nil, "", nil
	}
	ln, err := guard.ListenTCP(opts.Listen)
	if err != nil {
		return nil, "", err
	}
	token, err := listenToken(opts, logf)
	if err != nil {
		ln.Close()
		return nil, "", err
	}
	return ln, token, nil
}

// listenToken is the token --listen clients must send ("" when the user
// opted out, with a warning): read from the data home, or made there and
// shown once.
func listenToken(opts *ServeOptions, logf func(string, ...any)) (string, error) {
	if opts.InsecureNoAuth {
		logf("WARNING: --listen-insecure-no-auth: every program and user of this machine can ask http://%s anything serve answers, its status with the Chroma URL included; only web pages are kept out (Host and Origin checks)", opts.Listen)
		return "", nil
	}
	path, err := config.ServeTokenFile(opts.Getenv)
	if err != nil {
		return "", err
	}
	tok, created, err := guard.LoadOrCreateToken(path)
	if err != nil {
		return "", fmt.Errorf("--listen needs its token: %w", err)
	}
	if created {
		logf("made the token --listen clients must send, kept in %s (mode 0600); shown this once:\n  %s\n  send it as \"Authorization: Bearer <token>\" (cmdai's Go client: serve.DialTCP)", path, tok)
	} else {
		logf("--listen clients send the token kept in %s as \"Authorization: Bearer <token>\"", path)
	}
	return tok, nil
}
