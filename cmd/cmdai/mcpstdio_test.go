package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rpcReply is one JSON-RPC answer as read off `cmdai mcp`'s stdout.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// vmHWM is a process's peak resident memory in KiB (/proc/PID/status).
func vmHWM(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// TestMCPBadLinesGetErrors (issue 30, finding 10): raw lines on `cmdai
// mcp`'s stdin (this test binary as the CLI). Each bad one gets the
// JSON-RPC error the spec names: -32700 with id null for a line that is
// not JSON, -32600 for a batch, an object or fractional id, a numeric
// method, "jsonrpc": "1.0", and a 16 MiB line (read past without being
// held: the process's peak memory grows by less than the line). The
// session goes on: initialize, tools/list and tools/call answer after
// them, and closing stdin ends it with exit 0. On c849cec the first bad
// line ended the session with exit 1 and no answer.
func TestMCPBadLinesGetErrors(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI=mcp", "CMDAI_HOME="+t.TempDir(), "CMDAI_CHROMA_BIN=/nonexistent/chroma")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	replies := make(chan rpcReply)
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r rpcReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r.JSONRPC = "unreadable: " + sc.Text()
			}
			replies <- r
		}
	}()
	send := func(line string) rpcReply {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %.60q: %v (stderr: %s)", line, err, stderr.String())
		}
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatalf("after %.60q the session ended (stderr: %s)", line, stderr.String())
			}
			return r
		case <-time.After(time.Minute):
			t.Fatalf("no answer to %.60q", line)
		}
		return rpcReply{}
	}
	wantError := func(what, line string, code int, id string) {
		t.Helper()
		r := send(line)
		if r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code != code || string(r.ID) != id {
			t.Errorf("%s: %+v (error %+v); want error %d with id %s", what, r, r.Error, code, id)
		} else {
			t.Logf("%s -> %d %s", what, r.Error.Code, r.Error.Message)
		}
	}

	wantError("not JSON", "this is not json", -32700, "null")
	init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if init.Error != nil || !strings.Contains(string(init.Result), `"name":"cmdai"`) {
		t.Fatalf("initialize after a bad line: %+v %s", init.Error, init.Result)
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	wantError("not JSON", "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": ", -32700, "null")
	wantError("two values on a line", `{"jsonrpc":"2.0","id":3,"method":"ping"} {}`, -32700, "null")
	wantError("a batch", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600, "null")
	wantError("an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null")
	wantError("a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null")
	wantError("a numeric method", `{"jsonrpc":"2.0","id":5,"method":5}`, -32600, "5")
	wantError("jsonrpc 1.0", `{"jsonrpc":"1.0","id":"six","method":"ping"}`, -32600, `"six"`)
	wantError("no jsonrpc", `{"id":7,"method":"ping"}`, -32600, "7")
	wantError("a number", `42`, -32600, "null")

	// peak memory is read in /proc: Linux's, where CI runs the tests
	linux := runtime.GOOS == "linux"
	before := 0
	if linux {
		before = vmHWM(t, cmd.Process.Pid)
	}
	huge := `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"` + strings.Repeat("a", 16<<20) + `"}}`
	wantError("a 16 MiB line", huge, -32600, "null")
	if !linux {
		t.Log("not Linux: the peak memory is not checked")
	} else if grew := vmHWM(t, cmd.Process.Pid) - before; grew > 16<<10 {
		t.Errorf("peak memory grew by %d KiB reading a 16 MiB line: it was held", grew)
	} else {
		t.Logf("peak memory grew by %d KiB for the 16 MiB line", grew)
	}

	// the session goes on: a ping, the tools, a tool's own error
	if r := send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`); r.Error != nil || string(r.ID) != "9" {
		t.Errorf("ping: %+v", r)
	}
	if r := send(`{"jsonrpc":"2.0","id":10,"method":"tools/list"}`); r.Error != nil || strings.Count(string(r.Result), `"inputSchema"`) != 4 {
		t.Errorf("tools/list: %+v %.300s", r.Error, r.Result)
	}
	r := send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"explain_command","arguments":{"line":"   "}}}`)
	if r.Error != nil || string(r.ID) != "11" || !strings.Contains(string(r.Result), `"isError":true`) || !strings.Contains(string(r.Result), "empty line") {
		t.Errorf("tools/call: %+v %.300s", r.Error, r.Result)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("after stdin closed: %v; want exit 0 (stderr: %s)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "refused a line (JSON-RPC error -32700)") {
		t.Errorf("stderr does not log the refused lines:\n%s", stderr.String())
	}
}
