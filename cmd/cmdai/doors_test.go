package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/answer/answertest"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/explaincmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/mcpcmd"
)

// TestEveryDoorOneRule runs each door that may ask a running serve (the
// CLI's query and explain, MCP's tools) through the same rules
// (answer.ServeFirst, cmdutil.ServeRuledOut, answer.Degrade) with the
// door's own flags: a serve that holds the index answers; one that holds
// another index, none at all, or a flag that rules serve out (--no-serve,
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
				getenv := answertest.Machine(t)
				env := cmdtest.Env{"CMDAI_AUTO_SERVE": "false"}
				for _, k := range []string{"PATH", "MANPATH", "CMDAI_HOME"} {
					env[k] = getenv(k)
				}
				f, _, _ := cmdtest.Factory(t, env)
				answertest.SaveKeywords(t, f.Getenv)
				connects := 0
				f.Connect = func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) {
					connects++
					return nil, answertest.Down
				}
				var s *cmdtest.Serve
				if r.serve != "" {
					s = cmdtest.NewServe(t, r.serve)
					f.ServeClient = s.Dial
				}
				collection, degraded := d.ask(t, f, env, r.flags)
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
