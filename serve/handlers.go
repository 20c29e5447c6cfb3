package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/buildid"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/render"
	"github.com/cmdai/cmdai/search/shown"
	"github.com/cmdai/cmdai/serve/guard"
)

// Limits on a query: a request is a sentence, not a document, and k asks
// for commands, of which an index holds a few thousand.
const (
	maxBody         = 64 << 10
	MaxRequestBytes = 2000
	MaxK            = 100
	maxTokens       = 100000
)

// Limits are what serve takes in one request (answer.ServeFirst sends a
// request past them to the door's own process instead).
var Limits = answer.Limits{MaxK: MaxK, MaxRequestBytes: MaxRequestBytes, MaxLine: explain.MaxLine}

func (s *Server) routes(socket bool) http.Handler {
	mux := http.NewServeMux()
	allow := map[string][]string{"/v1/query": {"POST"}, "/v1/docs": {"GET"}, "/v1/explain": {"POST"}, "/v1/status": {"GET"}, "/v1/health": {"GET", "HEAD"}}
	mux.HandleFunc("/v1/query", s.handleQuery)
	mux.HandleFunc("/v1/docs", s.handleDocs)
	mux.HandleFunc("/v1/explain", s.handleExplain)
	mux.HandleFunc("/v1/status", s.handleStatus)
	mux.HandleFunc("/v1/health", s.handleHealth)
	if socket {
		mux.HandleFunc("/v1/lease", s.handleLease)
		allow["/v1/lease"] = []string{"POST"}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &Error{Status: 404, Message: "no such endpoint " + r.URL.Path + ": use /v1/query, /v1/docs, /v1/explain, /v1/status or /v1/health", ExitCode: 2})
	})
	return s.track(guard.Methods(mux, allow))
}

// track counts requests for the idle timeout and OnQuiet.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.active.Add(1)
		s.requests.Add(1)
		defer func() {
			s.lastActive.Store(time.Now().UnixNano())
			s.active.Add(-1)
		}()
		h.ServeHTTP(w, r)
	})
}

func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, &Error{Status: 405, Message: "POST a JSON query to /v1/query", ExitCode: 2})
		return
	}
	q, err := decodeQuery(w, r)
	if err != nil {
		writeError(w, err)
		return
	}
	res, qerr := inGate(s, r.Context(), func(ctx context.Context) (answer.QueryResult, error) { return s.b.Query(ctx, q) })
	if qerr != nil {
		writeError(w, qerr)
		return
	}
	if q.Context {
		res.Context = render.Context(res.Commands, q.MaxTokens)
	}
	writeJSON(w, http.StatusOK, res)
}

// decodeQuery reads and checks a query: one JSON object of known fields,
// a request of valid UTF-8 under MaxRequestBytes, k and max_tokens in
// range, a known mode. Defaults are those of `index query`.
func decodeQuery(w http.ResponseWriter, r *http.Request) (answer.QueryRequest, *Error) {
	// k and max_tokens as pointers: an explicit 0 is an error, a missing
	// one the default.
	var in struct {
		answer.QueryRequest
		K         *int `json:"k"`
		MaxTokens *int `json:"max_tokens"`
	}
	if err := decodeJSON(w, r, maxBody, "query", "64 KiB: a request is one sentence", `{"request": "...", "k": 5}`, &in); err != nil {
		return answer.QueryRequest{}, err
	}
	q := in.QueryRequest
	q.K, q.MaxTokens = 5, render.DefaultContextTokens
	if in.K != nil {
		q.K = *in.K
	}
	if in.MaxTokens != nil {
		q.MaxTokens = *in.MaxTokens
	}
	q.Request = strings.TrimSpace(q.Request)
	switch {
	case q.Request == "":
		return q, badRequest("empty request: say what you want to do, e.g. \"find files modified today\"")
	case q.Check(Limits) != nil:
		return q, badRequest("%v", q.Check(Limits))
	case q.MaxTokens <= 0 || q.MaxTokens > maxTokens:
		return q, badRequest("max_tokens must be 1 to %d, not %d", maxTokens, q.MaxTokens)
	case q.Matches < 0:
		return q, badRequest("matches must be 1 or more (leave it out for %d), not %d", shown.DefaultMatches, q.Matches)
	}
	if q.Mode == "" {
		q.Mode = string(search.DefaultMode)
	}
	if _, err := search.ParseMode(q.Mode); err != nil {
		return q, badRequest("mode: %v", err)
	}
	return q, nil
}

// enter waits, up to QueryWait, for a writer's lease to end.
func (s *Server) enter(ctx context.Context) *Error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryWait)
	defer cancel()
	if err := s.gate.Enter(ctx); err != nil {
		return &Error{Status: 503, Message: "the index is being written (index init, refresh, import, clear or docs): retry when it is done", ExitCode: 6}
	}
	return nil
}

// maxExplainBody bounds POST /v1/explain's body: a line of
// explain.MaxLine bytes and a path of answer.MaxPathBytes, each byte of
// which JSON may spell in six (\u0000).
const maxExplainBody = 6*(explain.MaxLine+answer.MaxPathBytes) + 1024

// handleExplain answers POST /v1/explain {"line": "..."} with the line
// explained (answer.ExplainResult): what `cmdai explain` and MCP's
// explain_command print. A line the shell cannot parse is 400, exit 2.
func (s *Server) handleExplain(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, &Error{Status: 405, Message: "POST a JSON {\"line\": \"...\"} to /v1/explain", ExitCode: 2})
		return
	}
	req, err := decodeExplain(w, r)
	if err != nil {
		writeError(w, err)
		return
	}
	res, eerr := inGate(s, r.Context(), func(ctx context.Context) (answer.ExplainResult, error) { return s.b.Explain(ctx, req) })
	if eerr != nil {
		writeError(w, eerr)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// inGate runs do with the index held for reading (in through the gate,
// out once do returns): a writer's lease waits for it, and it for the
// lease. Its error comes back as the answer's *Error.
func inGate[T any](s *Server, ctx context.Context, do func(context.Context) (T, error)) (T, *Error) {
	var zero T
	if err := s.enter(ctx); err != nil {
		return zero, err
	}
	res, err := do(ctx)
	s.gate.Leave()
	if err != nil {
		return zero, s.asError(err)
	}
	return res, nil
}

// decodeExplain reads an explain request. The line itself (blank, too
// long, control bytes, not shell) is Explain's to judge: one message
// wherever a line comes from.
func decodeExplain(w http.ResponseWriter, r *http.Request) (answer.ExplainRequest, *Error) {
	var req answer.ExplainRequest
	limit := fmt.Sprintf("%d KiB: a line is at most %d KiB", maxExplainBody>>10, explain.MaxLine>>10)
	err := decodeJSON(w, r, maxExplainBody, "explain", limit, `{"line": "tar -xzf a.tgz"}`, &req)
	if err == nil && req.CheckPath() != nil {
		return req, badRequest("%v", req.CheckPath())
	}
	return req, err
}

// decodeJSON reads a request body of at most limit bytes (tooBig says
// what that limit is) into v: one JSON object of known fields, of valid
// UTF-8 (encoding/json would turn invalid bytes into U+FFFD silently).
// what names the request in messages, example is one to send.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, what, tooBig, example string, v any) *Error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return &Error{Status: 413, Message: what + " body over " + tooBig, ExitCode: 2}
		}
		return badRequest("read the %s: %v", what, err)
	}
	if !utf8.Valid(raw) {
		return badRequest("%s is not valid UTF-8", what)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("bad %s JSON: %v (send %s)", what, err, example)
	}
	if dec.More() {
		return badRequest("bad %s JSON: one object per request", what)
	}
	return nil
}

// handleDocs answers GET /v1/docs?command=NAME[&strict=true] with the
// command's records (search.CommandDoc): what MCP's command_docs renders.
func (s *Server) handleDocs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeError(w, &Error{Status: 405, Message: "GET /v1/docs?command=NAME", ExitCode: 2})
		return
	}
	req, err := docsRequest(r)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.enter(r.Context()); err != nil {
		writeError(w, err)
		return
	}
	doc, derr := s.b.Docs(r.Context(), req)
	s.gate.Leave()
	if errors.Is(derr, search.ErrUnknownCommand) {
		writeError(w, &Error{Status: http.StatusNotFound, Message: derr.Error(), ExitCode: 2})
		return
	}
	if derr != nil {
		writeError(w, s.asError(derr))
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// docsRequest reads the one command=NAME parameter (guard.CommandName:
// grep, git commit or git-commit), the optional request=TEXT (what to
// narrow the doc to) and strict=true|false into the answering layer's.
func docsRequest(r *http.Request) (answer.DocsRequest, *Error) {
	var req answer.DocsRequest
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return req, badRequest("bad query string: %v (send /v1/docs?command=grep)", err)
	}
	for k := range q {
		if k != "command" && k != "strict" && k != "request" {
			return req, badRequest("unknown parameter %q: send /v1/docs?command=grep (request=TEXT narrows it to what the request needs; strict=true for Chroma's error rather than an answer from disk)", k)
		}
	}
	if req.Request = q.Get("request"); len(q["command"]) > 1 || len(q["strict"]) > 1 || len(q["request"]) > 1 || len(req.Request) > MaxRequestBytes {
		return req, badRequest("one command per request, one strict and one request of at most %d bytes", MaxRequestBytes)
	}
	switch q.Get("strict") {
	case "", "false":
	case "true":
		req.Strict = true
	default:
		return req, badRequest("strict must be true or false, not %q", q.Get("strict"))
	}
	if req.Command, err = guard.CommandName(q.Get("command")); err != nil {
		return answer.DocsRequest{}, badRequest("%v", err)
	}
	return req, nil
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeError(w, &Error{Status: 405, Message: "GET /v1/status", ExitCode: 2})
		return
	}
	req, rerr := statusRequest(r)
	if rerr != nil {
		writeError(w, rerr)
		return
	}
	if err := s.enter(r.Context()); err != nil {
		writeError(w, err)
		return
	}
	st, err := s.b.Status(r.Context(), req)
	s.gate.Leave()
	if err != nil {
		writeError(w, s.asError(err))
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	h, until := s.b.Where(), time.Time{}
	if s.opts.IdleTimeout > 0 { // this request counts: the deadline is from now
		until = time.Now().Add(s.opts.IdleTimeout).UTC().Truncate(time.Second)
	}
	writeJSON(w, http.StatusOK, Health{OK: true, PID: os.Getpid(), Collection: h.Collection, ChromaURL: h.ChromaURL, DataDir: h.DataDir,
		Writing: s.gate.IsWriting(), Degraded: h.Degraded, DegradedReason: h.DegradedReason, Background: s.opts.Background, IdleUntil: until, Build: buildid.Self(), Models: s.opts.Models})
}

// handleLease gives a writer serve's Chroma for as long as its connection
// stays open: queries wait meanwhile; when the writer closes it (or
// dies), serve reloads the collection and its keyword index, then lets
// the queries in.
func (s *Server) handleLease(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, &Error{Status: 405, Message: "POST /v1/lease", ExitCode: 2})
		return
	}
	// Without Chroma serve has none to lend: the writer reaches (or
	// starts) Chroma itself and fails with Chroma's own error.
	if h := s.b.Where(); h.Degraded {
		writeError(w, &Error{Status: http.StatusBadGateway, Message: "cmdai serve runs without Chroma and has none to lend a writer (" + h.DegradedReason + "); start Chroma or fix --chroma-url, or run the writer with --no-serve", ExitCode: 4})
		return
	}
	read := r.URL.Query().Get("read")
	if read != "" && read != "true" {
		writeError(w, badRequest("read=%q: give read=true for a reader's lease, or nothing for a writer's", read))
		return
	}
	if read == "true" {
		// a reader (a one-shot answer, status, doctor, export): in as a
		// query is, so writers wait for it, but nothing to reload after
		if err := s.enter(r.Context()); err != nil {
			writeError(w, err)
			return
		}
		defer s.gate.Leave()
	} else {
		if err := s.gate.Lock(r.Context()); err != nil {
			return // the writer left while waiting
		}
		defer s.gate.Unlock()
	}
	// The lease outlives the server's read timeout.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	h := s.b.Where()
	writeJSON(w, http.StatusOK, Lease{ChromaURL: h.ChromaURL, DataDir: h.DataDir})
	rc.Flush()
	if read == "true" {
		<-r.Context().Done()
		return
	}
	s.opts.Logf("a writer holds the index")
	<-r.Context().Done()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.b.Reload(ctx); err != nil {
		s.opts.Logf("reload after the write: %v", err)
		return
	}
	s.opts.Logf("the writer is done: index reloaded")
}

// asError gives a Backend error its HTTP status from its exit code.
func (s *Server) asError(err error) *Error {
	if errors.Is(err, answer.ErrNotHeld) {
		return &Error{Status: http.StatusMisdirectedRequest, Message: err.Error(), ExitCode: 2}
	}
	if errors.Is(err, explain.ErrTooBig) {
		// a line over explain's limits (length, nesting, answer size)
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: err.Error(), ExitCode: 2}
	}
	code := s.opts.Code(err)
	status := http.StatusInternalServerError
	switch code {
	case 2:
		status = http.StatusBadRequest
	case 3:
		status = http.StatusNotFound
	case 4:
		status = http.StatusBadGateway
	case 6:
		status = http.StatusServiceUnavailable
	}
	return &Error{Status: status, Message: err.Error(), ExitCode: code}
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, jsonout.Error{Error: e.Message, ExitCode: e.ExitCode})
}

// writeJSON writes v as `index query --json` does (one line, its schema
// version first); a client gone mid-answer only loses its answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = jsonout.Encode(w, v)
}
