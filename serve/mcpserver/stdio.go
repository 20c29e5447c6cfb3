package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one message (one line) a client sends: the
// largest a tool takes is explain_command's line, 64 KiB, which JSON may
// spell in six times as many bytes.
const MaxMessageBytes = 4 << 20

// StdioTransport is MCP on a reader and a writer (stdin and stdout),
// one JSON-RPC message per line as the spec's stdio transport says, with
// a filter in front of the SDK's own transport, which ends the session on
// the first line it cannot read. Here a line that is not one JSON-RPC 2.0
// message gets the error the JSON-RPC spec names and the session goes
// on: -32700 (parse error) for a line that is not JSON, -32600 (invalid
// request) for a batch (which MCP dropped in 2025-06-18), an id that is
// no string or integer, a method that is no string, a "jsonrpc" other
// than "2.0", and a line over MaxBytes, which is read past without being
// held in memory.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxBytes bounds a line (0: MaxMessageBytes).
	MaxBytes int
	// Logf, when set, is told of each refused line.
	Logf func(format string, a ...any)
}

// Connect implements mcp.Transport: the SDK reads the lines that pass
// the filter, and its writes and the filter's error answers go to Out one
// whole message at a time.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxBytes
	if limit <= 0 {
		limit = MaxMessageBytes
	}
	pr, pw := io.Pipe()
	out := &lockedWriter{w: t.Out}
	inFlight := &inFlight{}
	go t.filter(pw, out, limit, inFlight)
	sdk := &mcp.IOTransport{Reader: pr, Writer: &answerCounter{w: out, f: inFlight}, MaxLineLength: limit + 1}
	return sdk.Connect(ctx)
}

// DrainWait bounds how long the end of stdin waits for the answers of
// the requests read before it (`printf ... | cmdai mcp`): a session ends
// when its input does, which would drop answers still being made.
var DrainWait = 30 * time.Second

// inFlight counts the requests passed to the SDK and the answers it
// wrote.
type inFlight struct{ asked, answered atomic.Int64 }

// drain waits until every request read has its answer, or DrainWait.
func (f *inFlight) drain() {
	for deadline := time.Now().Add(DrainWait); f.answered.Load() < f.asked.Load() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// kindOf says whether a message is a request (a method and an id), which the
// server answers; isAnswer that it is an answer (an id, a result or an
// error, no method).
func kindOf(msg []byte) (isRequest, isAnswer bool) {
	var m struct {
		ID     json.RawMessage  `json:"id"`
		Method *string          `json:"method"`
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return false, false
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	return hasID && m.Method != nil, hasID && m.Method == nil && (m.Result != nil || m.Error != nil)
}

// answerCounter is the SDK's writer: it counts the answers written
// (one message per Write, as the SDK writes them).
type answerCounter struct {
	w io.Writer
	f *inFlight
}

func (a *answerCounter) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	if _, isAnswer := kindOf(bytes.TrimSpace(p)); isAnswer && err == nil {
		a.f.answered.Add(1)
	}
	return n, err
}

// Close leaves Out open: stdout is the process's.
func (a *answerCounter) Close() error { return nil }

// lockedWriter writes each message whole: the SDK writes one in one
// call, the filter its errors in one call.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves Out open: stdout is the process's.
func (l *lockedWriter) Close() error { return nil }

// filter reads In line by line, passes each good message on to pw and
// answers each bad one on out, until In ends (then, once the requests
// read have their answers, pw ends, and the session with it) or the
// session closes pw.
func (t *StdioTransport) filter(pw *io.PipeWriter, out io.Writer, limit int, f *inFlight) {
	r := bufio.NewReaderSize(t.In, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !over && len(line)+len(chunk) <= limit+1 { // +1: the newline
			line = append(line, chunk...)
		} else if !over {
			over, line = true, line[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		pass, answer := t.judge(line, over, limit)
		switch {
		case answer != nil:
			if _, werr := out.Write(answer); werr != nil {
				pw.CloseWithError(werr)
				return
			}
		case pass:
			if isRequest, _ := kindOf(bytes.TrimSpace(line)); isRequest {
				f.asked.Add(1)
			}
			if _, werr := pw.Write(line); werr != nil {
				return // the session is over
			}
			if line[len(line)-1] != '\n' {
				pw.Write([]byte{'\n'})
			}
		}
		line, over = line[:0], false
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
				f.drain()
			}
			pw.CloseWithError(err)
			return
		}
	}
}

// judge says whether a line passes to the SDK, or what to answer it
// (nil for a blank line, which is skipped).
func (t *StdioTransport) judge(line []byte, over bool, limit int) (bool, []byte) {
	if over {
		return false, t.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: message over %d MiB: send one JSON-RPC message per line, each at most %d bytes", limit>>20, limit))
	}
	msg := bytes.TrimSpace(line)
	switch {
	case len(msg) == 0:
		return false, nil
	case !json.Valid(msg):
		return false, t.refuse(nil, jsonrpc.CodeParseError, "Parse error: the line is not one JSON value: send one JSON-RPC 2.0 message per line")
	case msg[0] == '[':
		return false, t.refuse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 dropped them): send one message per line")
	case msg[0] != '{':
		return false, t.refuse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is a JSON object")
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(msg, &head) // valid JSON, an object
	id, idOK := validID(head.ID)
	if !idOK {
		return false, t.refuse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an id is a string or an integer")
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return false, t.refuse(id, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (\"jsonrpc\": \"2.0\", a string method, a string or integer id): "+err.Error())
	}
	return true, nil
}

// validID reads a message's id: absent or null (a notification, or an
// error answer's), a string, or an integer (a fraction would be answered
// under another id).
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	switch v := v.(type) {
	case string:
		return raw, true
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return raw, true
		}
	}
	return nil, false
}

// refuse is the error answer to a bad line (id null when it has none
// that can be read), and logs it.
func (t *StdioTransport) refuse(id json.RawMessage, code int64, message string) []byte {
	if t.Logf != nil {
		t.Logf("refused a line (JSON-RPC error %d): %s", code, message)
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return append(b, '\n')
}
