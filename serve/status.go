package serve

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cmdai/cmdai/answer"
)

// MaxEnvBytes bounds each of a status request's path and manpath: a
// $PATH is a few hundred bytes; the cap keeps the request line (where
// they travel, percent-encoded) under the server's header limit. A
// caller with a longer one works out its status itself.
const MaxEnvBytes = answer.MaxPathBytes

// CheckScanEnv says what is wrong with e for serve (nil: nothing): each
// value at most MaxEnvBytes, no NUL byte (no environment holds one), and
// no relative $MANPATH entry (relative to which directory?).
func CheckScanEnv(e answer.ScanEnv) error {
	if err := checkScanEnv(e); err != nil {
		return err
	}
	return nil
}

func checkScanEnv(e answer.ScanEnv) *Error {
	for _, v := range []struct{ name, val string }{{"path", e.Path}, {"manpath", e.ManPath}} {
		switch {
		case len(v.val) > MaxEnvBytes:
			return badRequest("%s of %d bytes: at most %d", v.name, len(v.val), MaxEnvBytes)
		case strings.IndexByte(v.val, 0) >= 0:
			return badRequest("%s holds a NUL byte: send the environment variable as it is", v.name)
		}
	}
	for _, d := range filepath.SplitList(e.ManPath) {
		if d != "" && !filepath.IsAbs(d) {
			return badRequest("manpath entry %q is relative: make it absolute (serve does not know the caller's working directory)", d)
		}
	}
	return nil
}

// statusRequest reads GET /v1/status's parameters: detailed (a boolean),
// path and manpath (the caller's $PATH and $MANPATH; manpath only with
// path), each at most once, and no others.
func statusRequest(r *http.Request) (answer.StatusRequest, *Error) {
	const usage = "send /v1/status?detailed=true&path=$PATH&manpath=$MANPATH (all optional)"
	var req answer.StatusRequest
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return req, badRequest("bad query string: %v (%s)", err, usage)
	}
	for k, v := range q {
		switch k {
		case "detailed", "path", "manpath":
		default:
			return req, badRequest("unknown parameter %q: %s", k, usage)
		}
		if len(v) > 1 {
			return req, badRequest("%s given %d times: once at most", k, len(v))
		}
	}
	if d := q.Get("detailed"); d != "" {
		if req.Detailed, err = strconv.ParseBool(d); err != nil {
			return req, badRequest("detailed=%q: true or false", d)
		}
	}
	_, hasPath := q["path"]
	_, hasManPath := q["manpath"]
	switch {
	case hasPath:
		env := answer.ScanEnv{Path: q.Get("path"), ManPath: q.Get("manpath")}
		if err := checkScanEnv(env); err != nil {
			return req, err
		}
		req.Env = &env
	case hasManPath:
		return req, badRequest("manpath without path: send both (path empty for none), or neither for serve's own")
	}
	return req, nil
}
