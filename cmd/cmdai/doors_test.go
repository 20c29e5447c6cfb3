package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/answer/answertest"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/explaincmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/mcpcmd"
	"github.com/cmdai/cmdai/serve"
)

// TestEveryDoorOneRule runs each door that may ask a running serve (the
// CLI's query and explain, MCP's tools) through the same rules
// (answer.ServeFirst, cmdutil.ServeRuledOut, answer.Degrade) with the
// door's own flags: a serve that holds the index answers; one that holds
// another index or of another build, one that dies mid-answer, none at all, or a flag that rules serve out (--no-serve,
// --chroma-url, --no-rerank, --model-variant: serve answers with its own
// Chroma and models) leaves the answer here, where Chroma is down, so it
// comes from disk, degraded. Nothing real runs: a fake serve on a Unix
// socket, Chroma unreachable, the keyword index of answertest.
func TestEveryDoorOneRule(t *testing.T) {
	rows := []struct {
		name  string
		serve string // the collection a running serve holds ("": none)
		flags []string
		// query: only the doors that answer requests take the flag
		query bool
		want  string // "serve", or "here" (degraded, from disk)
	}{
		{"serve holds the index", answertest.Collection, nil, false, "serve"},
		{"no serve", "", nil, false, "here"},
		{"serve of another index", "cmdai_linux_other", nil, false, "here"},
		{"serve of another build", answertest.Collection, []string{"other-build"}, false, "here"},
		{"serve dies mid-answer", answertest.Collection, []string{"dies-mid-answer"}, false, "here"},
		{"--no-serve", answertest.Collection, []string{"--no-serve"}, false, "here"},
		{"--chroma-url", answertest.Collection, []string{"--chroma-url", "http://127.0.0.1:9"}, false, "here"},
		{"--no-rerank", answertest.Collection, []string{"--no-rerank"}, true, "here"},
		{"--model-variant", answertest.Collection, []string{"--model-variant", "fp32"}, true, "here"},
	}
	type door struct {
		name    string
		queries bool // takes the model flags
		ask     func(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, flags []string) (collection string, degraded bool)
	}
	doors := []door{
		{"cmdai index query", true, func(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, flags []string) (string, bool) {
			out := f.IO.Out.(interface{ String() string })
			args := append([]string{"index", "query", "--json", "--distro", "test", "--mode", "keyword"}, flags...)
			if err := cmdtest.Run(t, cmdtest.Index(querycmd.NewCmdQuery(f, nil)), env, append(args, "count words")...); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			var res answerlayer.QueryResult
			if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
				t.Fatalf("%v: %v in %q", args, err, out.String())
			}
			return res.Collection, res.Degraded
		}},
		{"cmdai explain", false, func(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, flags []string) (string, bool) {
			out := f.IO.Out.(interface{ String() string })
			args := append([]string{"explain", "--json", "--distro", "test"}, flags...)
			if err := cmdtest.Run(t, explaincmd.NewCmdExplain(f, nil), env, append(args, "wc -l")...); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			var res answerlayer.ExplainResult
			if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
				t.Fatalf("%v: %v in %q", args, err, out.String())
			}
			return res.Collection, res.Degraded
		}},
		{"cmdai mcp (search_commands)", true, func(t *testing.T, f *cmdutil.Factory, env cmdtest.Env, flags []string) (string, bool) {
			var res answerlayer.QueryResult
			err := cmdtest.Run(t, mcpcmd.NewCmdMCP(f, func(o *mcpcmd.Options) error {
				a, closeA := mcpcmd.NewAnswerer(context.Background(), o)
				defer closeA()
				var err error
				res, err = a.Query(context.Background(), answerlayer.QueryRequest{Request: "count words", K: 3, Mode: "keyword"})
				return err
			}), env, append([]string{"mcp", "--distro", "test"}, flags...)...)
			if err != nil {
				t.Fatalf("mcp %v: %v", flags, err)
			}
			return res.Collection, res.Degraded
		}},
	}
	for _, d := range doors {
		for _, r := range rows {
			if r.query && !d.queries {
				continue
			}
			t.Run(d.name+"/"+r.name, func(t *testing.T) {
				f, env, _ := doorMachine(t)
				connects := 0
				f.Connect = func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) {
					connects++
					return nil, answertest.Down
				}
				var s *cmdtest.Serve
				flags := r.flags
				if r.serve != "" {
					s = cmdtest.NewServe(t, r.serve)
					f.ServeClient = s.Dial
					if slices.Equal(flags, []string{"other-build"}) {
						s.SetHealth(func(h *serve.Health) { h.Build = "another-build" })
						flags = nil
					}
					if slices.Equal(flags, []string{"dies-mid-answer"}) {
						// asked, it starts to answer and dies: the call is
						// answered here once (issue 45, finding 15)
						s.DieMidAnswer.Store(true)
						t.Cleanup(func() {
							if s.Died.Load() != 1 {
								t.Errorf("serve was asked %d times; want once, then here", s.Died.Load())
							}
						})
						flags = nil
					}
				}
				collection, degraded := d.ask(t, f, env, flags)
				switch r.want {
				case "serve":
					if collection != "serve" || degraded || s.Answered.Load() != 1 || connects != 0 {
						t.Errorf("answered from %q (degraded %v), serve answered %d, %d connections; want serve's answer alone", collection, degraded, s.Answered.Load(), connects)
					}
				default:
					if collection != answertest.Collection || !degraded || connects == 0 {
						t.Errorf("answered from %q (degraded %v) after %d connections; want this process's, from disk", collection, degraded, connects)
					}
					if s != nil && s.Answered.Load() != 0 {
						t.Errorf("serve answered %d calls; want none", s.Answered.Load())
					}
				}
				if strings.Contains(collection, "other") {
					t.Errorf("answered from another index: %q", collection)
				}
			})
		}
	}
}

// doorMachine is answertest's machine with its keyword index saved, and a
// Factory on it (auto-serve off): what a door's test runs in.
func doorMachine(t *testing.T) (*cmdutil.Factory, cmdtest.Env, *bytes.Buffer) {
	t.Helper()
	getenv := answertest.Machine(t)
	env := cmdtest.Env{"CMDAI_AUTO_SERVE": "false"}
	for _, k := range []string{"PATH", "MANPATH", "CMDAI_HOME"} {
		env[k] = getenv(k)
	}
	f, _, errOut := cmdtest.Factory(t, env)
	answertest.SaveKeywords(t, f.Getenv)
	return f, env, errOut
}

// TestServeOfAnotherBuildReplaced (issue 45, finding 2): a running serve
// of another build never answers. One started in the background is
// stopped (Factory.StopServe, given its socket and pid: here a child of
// the test stands for it, and is sent SIGTERM as serve --stop's checked
// stop would) so that one of this build replaces it; one started by hand
// is left running. The query is answered here either way, and stderr says
// so once, naming the build, as status's (and doctor's) serve line does.
func TestServeOfAnotherBuildReplaced(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	for _, background := range []bool{true, false} {
		f, env, errOut := doorMachine(t)
		f.Connect = func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) { return nil, answertest.Down }
		stand := exec.Command(sleep, "60")
		if err := stand.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- stand.Wait() }()
		s := cmdtest.NewServe(t, answertest.Collection)
		s.SetHealth(func(h *serve.Health) { h.Build, h.Background, h.PID = "0ld-build", background, stand.Process.Pid })
		f.ServeClient = s.Dial
		f.StopServe = func(socket string, pid int) error {
			if socket != s.Socket || pid != stand.Process.Pid {
				return fmt.Errorf("asked to stop pid %d on %s", pid, socket)
			}
			return stand.Process.Signal(syscall.SIGTERM)
		}
		out := f.IO.Out.(interface{ String() string })
		for range 2 {
			if err := cmdtest.Run(t, cmdtest.Index(querycmd.NewCmdQuery(f, nil)), env, "index", "query", "--json", "--distro", "test", "--mode", "keyword", "count words"); err != nil {
				t.Fatal(err)
			}
		}
		var res answerlayer.QueryResult
		if err := json.NewDecoder(strings.NewReader(out.String())).Decode(&res); err != nil || res.Collection != answertest.Collection || s.Answered.Load() != 0 {
			t.Errorf("background %v: answered from %q (%v), serve answered %d; want here", background, res.Collection, err, s.Answered.Load())
		}
		if state := f.ServeState(context.Background(), cmdutil.AutoServeOptions{}); !strings.Contains(state, "build 0ld-build, not this cmdai's") {
			t.Errorf("status's serve line should name its build: %q", state)
		}
		msg := errOut.String()
		if strings.Count(msg, "another build (0ld-build)") != 1 {
			t.Errorf("background %v: stderr should name the other build once: %q", background, msg)
		}
		select {
		case <-exited:
			if !background {
				t.Errorf("a serve started by hand was stopped")
			}
		case <-time.After(3 * time.Second):
			if background {
				t.Errorf("the background serve of another build was not stopped: %q", msg)
			}
			stand.Process.Kill()
		}
	}
}
