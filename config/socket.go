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
// sun_path: a longer path cannot be bound, so the cache root is left for
// the runtime directory or the temporary one.
const maxSocketPath = 100

// ServeSocket is where `cmdai serve` listens and every command looks for
// it. It belongs to one data home, so that two homes (tests run many at
// once) never find each other's serve:
//   - $XDG_RUNTIME_DIR/cmdai.sock for the default home (no CMDAI_HOME,
//     no configured home), else $XDG_RUNTIME_DIR/cmdai-<12 hex of the
//     cache root's sha256>.sock;
//   - without XDG_RUNTIME_DIR: <cache root>/cmdai.sock, unless that path
//     is too long for a socket, then $TMPDIR (or /tmp)/cmdai-<hash>.sock.
//
// The lock file that says a serve runs is the socket's path + ".lock".
func ServeSocket(getenv Env) (string, error) {
	root, err := CacheRoot(getenv)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	hashed := "cmdai-" + hex.EncodeToString(sum[:6]) + ".sock"
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		if def, err := defaultCacheRoot(getenv); err == nil && def == root {
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

// defaultCacheRoot is the cache root when neither CMDAI_HOME nor the
// configuration file moves it.
func defaultCacheRoot(getenv Env) (string, error) {
	if getenv(EnvHome) != "" {
		return "", errMoved
	}
	f, err := Load(getenv)
	if err != nil {
		return "", err
	}
	if _, ok := f.Value(KeyHome); ok {
		return "", errMoved
	}
	return xdgCacheRoot(getenv)
}

// errMoved: the cache root is not the default one.
var errMoved = errors.New("the cache root is moved by CMDAI_HOME or the configuration file")
