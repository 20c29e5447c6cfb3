// Package guard is what a request must be before serve's handlers see
// it: a method its endpoint takes (on every listener), and on the TCP
// listener a Host that names it, no foreign Origin, the bearer token and
// a JSON body. It also keeps the token file, and turns net/http's own
// plain-text error replies (431 and the like) into serve's JSON error
// object.
//
// A TCP port on loopback is open to every process of the machine and to
// every web page the user's browser shows: a page may POST text/plain
// cross-origin without a preflight, and DNS rebinding gives it a name
// that resolves to 127.0.0.1. The token keeps out both (a page cannot
// read the token file); the Host and Origin checks keep out the browser
// even when the user turned the token off.
package guard

import (
	"crypto/sha256"
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/cmdai/cmdai/internal/jsonout"
)

// PublicHealth is all GET /v1/health tells a client without the token
// (with --listen-insecure-no-auth, every TCP client): whether serve is up,
// degraded and being written, and nothing of its paths, URLs or ports.
type PublicHealth struct {
	OK       bool `json:"ok"`
	Writing  bool `json:"writing"`
	Degraded bool `json:"degraded,omitempty"`
}

// TCP guards the TCP listener at Addr (the address it is bound to, its
// real port) for the --listen address as the user gave it.
type TCP struct {
	Listen string
	Addr   net.Addr
	// Token is what clients send as "Authorization: Bearer <token>"; ""
	// is no authentication (the user's explicit opt-out).
	Token string
	// Health answers GET /v1/health for a client without the token.
	Health func() PublicHealth
}

// Wrap answers a request that fails a check with serve's JSON error
// (exit code 2) and passes the others to h: a Host other than the
// listener's own (403), a foreign Origin or a browser's cross-site fetch
// (403), no or a wrong token (401), a body that is not
// application/json (415).
func (g TCP) Wrap(h http.Handler) http.Handler {
	hosts := g.hosts()
	want := sha256.Sum256([]byte(g.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(hosts, strings.ToLower(r.Host)) {
			Error(w, http.StatusForbidden, "Host "+quote(r.Host)+" is not this serve's: ask http://"+hosts[0]+" (or localhost, [::1] with its port)")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !slices.Contains(hosts, strings.TrimPrefix(strings.ToLower(o), "http://")) {
			Error(w, http.StatusForbidden, "requests from another origin ("+quote(o)+") are refused: cmdai serve answers local programs, not web pages")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			Error(w, http.StatusForbidden, "a browser's "+site+" request is refused: cmdai serve answers local programs, not web pages")
			return
		}
		if g.Token != "" {
			got := sha256.Sum256([]byte(bearer(r)))
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="cmdai serve"`)
				Error(w, http.StatusUnauthorized, "no valid token: send \"Authorization: Bearer <token>\" with the token cmdai serve keeps in serve.token in its data directory (see cmdai serve --help)")
				return
			}
		} else if r.URL.Path == "/v1/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			writeJSON(w, http.StatusOK, g.Health())
			return
		}
		if r.Method == http.MethodPost {
			if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
				Error(w, http.StatusUnsupportedMediaType, "a POST body must be JSON, sent with \"Content-Type: application/json\"")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// hosts are the Host values that name the listener, lower case, the
// listen address as given (with the bound port) first: what a client of
// this serve sends. Any other is a name that merely resolves here (DNS
// rebinding) or a mistake. Port 80 may be left out, as clients do.
func (g TCP) hosts() []string {
	_, port, _ := net.SplitHostPort(g.Addr.String())
	host, _, _ := net.SplitHostPort(g.Listen)
	var hs []string
	for _, h := range []string{host, "127.0.0.1", "localhost", "::1"} {
		if h == "" {
			continue
		}
		hp := strings.ToLower(net.JoinHostPort(h, port))
		hs = append(hs, hp)
		if port == "80" {
			hs = append(hs, strings.TrimSuffix(hp, ":80"))
		}
	}
	return hs
}

// bearer is the request's bearer token ("" without one).
func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// Methods answers a request whose method its path does not take with 405,
// the Allow header and serve's JSON error; allow maps each path to its
// methods (a path it does not list passes).
func Methods(h http.Handler, allow map[string][]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms, ok := allow[r.URL.Path]
		if ok && !slices.Contains(ms, r.Method) {
			list := strings.Join(ms, ", ")
			w.Header().Set("Allow", list)
			Error(w, http.StatusMethodNotAllowed, r.URL.Path+" takes "+list+", not "+quote(r.Method))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Error writes serve's JSON error object with status and exit code 2:
// every refusal here is the request's fault.
func Error(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, jsonout.Error{Error: msg, ExitCode: 2})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = jsonout.Encode(w, v)
}

// quote quotes what a client sent, cut short: a message must not carry a
// client's megabytes.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strconv.Quote(s)
}
