package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
)

// TestStdioLineLimits: over the in-memory pipes of a real session (New
// over a fake backend), a line of exactly MaxBytes passes and one byte
// more is refused (-32600) and the next is answered, blank lines are
// skipped, CRLF lines are read, and stdin's end ends the session.
func TestStdioLineLimits(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	const limit = 400
	var logged []string
	tr := &StdioTransport{In: inR, Out: outW, MaxBytes: limit, Logf: func(f string, a ...any) { logged = append(logged, f) }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- New(&fakeBackend{}, "test").Run(ctx, tr) }()
	answers := bufio.NewScanner(outR)
	next := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, line); err != nil {
			t.Fatal(err)
		}
		got := make(chan map[string]any, 1)
		go func() {
			var m map[string]any
			if answers.Scan() {
				json.Unmarshal(answers.Bytes(), &m)
			}
			got <- m
		}()
		select {
		case m := <-got:
			return m
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %.80q", line)
		}
		return nil
	}
	init := next("\n   \n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\r\n")
	if init["result"] == nil {
		t.Fatalf("initialize after blank lines, with CRLF: %v", init)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	// a ping padded to exactly limit bytes (the newline not counted)
	ping := func(id, size int) string {
		head := `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"ping","params":{"p":"`
		return head + strings.Repeat("x", size-len(head)-3) + `"}}`
	}
	if m := next(ping(2, limit) + "\n"); m["error"] != nil || m["id"] != 2.0 {
		t.Errorf("a line of %d bytes: %v; want its answer", limit, m)
	}
	if m := next(ping(3, limit+1) + "\n"); m["error"] == nil || m["id"] != nil || !strings.Contains(m["error"].(map[string]any)["message"].(string), "at most 400 bytes") {
		t.Errorf("a line of %d bytes: %v; want -32600 with id null", limit+1, m)
	}
	if m := next(`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n"); m["error"] != nil || m["id"] != 4.0 {
		t.Errorf("after the refused line: %v", m)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("session end: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end with stdin")
	}
	if len(logged) != 1 {
		t.Errorf("logged %q: want the one refused line", logged)
	}
}

// slowBackend answers a search after a while.
type slowBackend struct{ fakeBackend }

func (s *slowBackend) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	time.Sleep(300 * time.Millisecond)
	return s.fakeBackend.Query(ctx, q)
}

// TestStdioAnswersWhatItReadBeforeEOF: `printf ... | cmdai mcp`: stdin
// ends right after a tool call; its answer is still written (before: the
// session ended with stdin and dropped it).
func TestStdioAnswersWhatItReadBeforeEOF(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_commands","arguments":{"query":"find files changed today"}}}`,
	}, "\n") + "\n"
	var out strings.Builder
	tr := &StdioTransport{In: strings.NewReader(in), Out: &out}
	if err := New(&slowBackend{}, "test").Run(context.Background(), tr); err != nil {
		t.Fatalf("session: %v", err)
	}
	var ids []float64
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["id"] != nil {
			ids = append(ids, m["id"].(float64))
			if m["id"] == 2.0 && (m["result"] == nil || !strings.Contains(line, "find")) {
				t.Errorf("the tool call's answer: %s", line)
			}
		}
	}
	if len(ids) != 2 || ids[1] != 2 {
		t.Errorf("answered ids %v; want 1 and 2 (the search read before EOF)", ids)
	}
}
