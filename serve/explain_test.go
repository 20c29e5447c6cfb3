package serve

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// fakeTar is a lookup of one command, tar, with two option records; any
// other command is not in the index.
func fakeTar(_ context.Context, command string) (search.CommandDoc, error) {
	if command != "tar" {
		return search.CommandDoc{}, errors.Join(search.ErrUnknownCommand, errors.New(command+" is not in the index"))
	}
	return search.CommandDoc{CommandHit: shown.CommandHit{Command: "tar", Description: "an archiving utility", ManSection: "1"},
		Records: []shown.Match{
			{ID: "tar.1#NAME", Kind: index.KindSummary, Section: "NAME", Text: "tar - an archiving utility\nSYNOPSIS\ntar [OPTION...] [FILE]..."},
			{ID: "tar.1#OPTIONS#-x", Kind: index.KindOption, Section: "OPTIONS", Option: "-x", Text: "tar(1) option -x, --extract, --get\nExtract files from an archive."},
			{ID: "tar.1#OPTIONS#-f", Kind: index.KindOption, Section: "OPTIONS", Option: "-f", Text: "tar(1) option -f, --file=ARCHIVE\nUse archive file or device ARCHIVE."},
		}}, nil
}

// badLineCode gives a line the shell cannot parse exit code 2, as cmdai's
// ExitCode does for the usage error the CLI's backend makes of it.
func badLineCode(err error) int {
	if errors.Is(err, explain.ErrBadLine) {
		return 2
	}
	return 1
}

// TestExplain: POST /v1/explain answers a good line with the verdicts;
// bad JSON, an empty line, a line the shell cannot parse, a body over
// the limit and a GET are each a JSON error of exit code 2; a client that
// sends half a body and leaves, or garbage, does not take serve down.
func TestExplain(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{Code: badLineCode, HeaderTimeout: 200 * time.Millisecond})
	c := dial(t, socket)
	res, err := c.Explain(context.Background(), answer.ExplainRequest{Line: "tar -xf a.tar | nosuchcmd --frob"})
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	if len(res.Commands) != 2 || res.Commands[0].Name != "tar" || res.Commands[0].Verdict != judge.Known || res.Collection != "cmdai_linux_debian-12" {
		t.Fatalf("explain: %+v; want tar known, then nosuchcmd", res)
	}
	if res.Commands[1].Verdict != judge.NotInstalled || res.NotInstalledCount != 1 || res.OK {
		t.Errorf("nosuchcmd: %+v; want not installed, the line not OK", res.Commands[1])
	}
	if _, err := c.Explain(context.Background(), answer.ExplainRequest{Line: "tar -x", Distro: "fedora-40"}); !errors.Is(err, answer.ErrNotHeld) {
		t.Errorf("another distro: %v; want answer.ErrNotHeld", err)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"malformed", `{"line": "tar -x"`, 400, "bad explain JSON"},
		{"not an object", `["tar"]`, 400, "bad explain JSON"},
		{"two objects", `{"line":"ls"} {"line":"ls"}`, 400, "one object"},
		{"unknown field", `{"line":"ls","k":3}`, 400, `unknown field \"k\"`},
		{"empty", `{"line":"   "}`, 400, "empty"},
		{"no line", `{}`, 400, "empty"},
		{"unbalanced quote", `{"line":"tar -xf 'a.tar"}`, 400, "bad command line"},
		{"control bytes", `{"line":"tar -x\u0001f"}`, 400, "bad command line"},
		{"invalid UTF-8", "{\"line\":\"tar \xff\xfe\"}", 400, "not valid UTF-8"},
		{"1 MB", `{"line":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "KiB"},
		{"over MaxLine", `{"line":"` + strings.Repeat("a ", explain.MaxLine) + `"}`, 413, "bad command line"},
		// finding 2 of issue 30: 21,800 nested $( made a 715 MB answer
		{"deep $(", `{"line":"` + strings.Repeat("$(", 21800) + "ls" + strings.Repeat(")", 21800) + `"}`, 413, "nest more than 64 deep"},
		{"deep <(", `{"line":"` + strings.Repeat("ls <(", 6500) + "ls" + strings.Repeat(")", 6500) + `"}`, 413, "nest more than 64 deep"},
		{"long answer", `{"line":"tar -` + strings.Repeat("x", 40000) + `"}`, 413, "MiB"},
	} {
		status, body := post(t, socket, "/v1/explain", tc.body)
		if status != tc.status || !strings.Contains(body, tc.want) || !strings.Contains(body, `"exit_code":2`) || !strings.HasPrefix(body, `{"schema_version":1,"error":`) {
			t.Errorf("%s: %d %.300s; want %d with %q", tc.name, status, body, tc.status, tc.want)
		}
	}
	if status, body := get(t, socket, "/v1/explain"); status != 405 || !strings.Contains(body, "POST") {
		t.Errorf("GET /v1/explain: %d %s; want 405", status, body)
	}
	// half a body, then gone; then bytes that are no HTTP
	for _, raw := range []string{
		"POST /v1/explain HTTP/1.1\r\nHost: cmdai\r\nContent-Length: 500\r\n\r\n{\"line\":\"tar",
		"\x00\x01\x02 not http at all\r\n\r\n",
	} {
		conn, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte(raw))
		time.Sleep(20 * time.Millisecond)
		conn.Close()
	}
	status, body := post(t, socket, "/v1/explain", `{"line":"tar -xf a.tar"}`)
	if status != 200 || !strings.HasPrefix(body, `{"schema_version":1,"line":"tar -xf a.tar"`) || !strings.Contains(body, `"explain_ms"`) {
		t.Errorf("after the bad clients: %d %s", status, body)
	}
}
