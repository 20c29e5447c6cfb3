package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
)

// serveSocket is the name of `cmdai serve`'s socket, and the prefix of
// the per-home names under $XDG_RUNTIME_DIR.
const serveSocket = "cmdai.sock"

// maxSocketPath is below the 104 (macOS) and 108 (Linux) bytes of
// sun_path: a longer path cannot be bound, so the data root is left for
// the runtime directory or the temporary one.
const maxSocketPath = 100

// ServeSocket is where `cmdai serve` listens and every command looks for
// it. It belongs to one data home, so that two homes (tests run many at
// once) never find each other's serve:
//   - $XDG_RUNTIME_DIR/cmdai.sock for the default home (no CMDAI_HOME,
//     no configured home), else $XDG_RUNTIME_DIR/cmdai-<12 hex of the
//     data root's sha256>.sock;
//   - without XDG_RUNTIME_DIR: <data root>/cmdai.sock, unless that path
//     is too long for a socket, then $TMPDIR (or /tmp)/cmdai-<hash>.sock.
//
// The lock file that says a serve runs is the socket's path + ".lock".
func ServeSocket(getenv Env) (string, error) {
	root, err := DataRoot(getenv)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	hashed := "cmdai-" + hex.EncodeToString(sum[:6]) + ".sock"
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		if def, err := defaultDataRoot(getenv); err == nil && def == root {
			return filepath.Join(rt, serveSocket), nil
		}
		return filepath.Join(rt, hashed), nil
	}
	if p := filepath.Join(root, serveSocket); len(p) <= maxSocketPath {
		return p, nil
	}
	tmp := getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, hashed), nil
}

// ServeTokenFile is where `cmdai serve --listen` keeps the token its TCP
// clients send (mode 0600): serve.token in the data root, one per data
// home like the socket, read by the user's own programs and no one
// else's.
func ServeTokenFile(getenv Env) (string, error) {
	return underData(getenv, "serve.token")
}

// defaultDataRoot is the data root when neither CMDAI_HOME nor the
// configuration file moves it.
func defaultDataRoot(getenv Env) (string, error) {
	if _, moved, err := movedHome(getenv); moved || err != nil {
		return "", errors.Join(errMoved, err)
	}
	return xdgDataRoot(getenv)
}

// errMoved: the data root is not the default one.
var errMoved = errors.New("the data root is moved by CMDAI_HOME or the configuration file")

// ServeLogFile is where a serve started in the background (package
// autostart) writes what it says, since it has no terminal to print to:
// serve.log under the state root, one per home.
func ServeLogFile(getenv Env) (string, error) {
	root, err := StateRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "serve.log"), nil
}
