package evalcmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/urfave/cli/v2"
)

// evalCmd runs `cmdai index eval ARGS...` with cmd under index, as the
// app does (usage errors, flags after arguments), with none of the
// environment variables its flags read set.
func evalCmd(t *testing.T, cmd *cli.Command, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), nil, append([]string{"index", "eval"}, args...)...)
}

// TestEvalFlags: the flags reach the run as given; --baseline implies
// --compare; the model variant is the index's unless one is asked for.
func TestEvalFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *EvalOptions
	err := evalCmd(t, NewCmdEval(f, func(o *EvalOptions) error { got = o; return nil }), "--queries", "q.jsonl", "-k", "7", "--mode", "keyword, hybrid", "--baseline", "hybrid", "--json", "--distro", "fedora-40")
	if err != nil || got == nil {
		t.Fatalf("eval: %v", err)
	}
	if got.Queries != "q.jsonl" || got.K != 7 || got.Modes != "keyword, hybrid" || !got.Compare || got.Baseline != "hybrid" || !got.JSON || got.Distro != "fedora-40" || got.Model.Variant != "" {
		t.Errorf("options: %+v", got)
	}
}

// TestEvalUsageErrors: each bad input is a usage error (exit 2) naming
// the flag, and nothing runs (without --queries the library says so; the
// app makes that exit 2).
func TestEvalUsageErrors(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	err := evalCmd(t, NewCmdEval(f, func(*EvalOptions) error { t.Error("ran without --queries"); return nil }), "-k", "3")
	if err == nil || !strings.Contains(err.Error(), `Required flag "queries"`) {
		t.Errorf("no --queries: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "no", "misses.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--queries", "q", "-k", "0"}, "-k must be 1 or more, not 0"},
		{[]string{"--queries", "q", "--mode", " , "}, "--mode: name one mode or more"},
		{[]string{"--queries", "q", "--mode", "keyword,psychic"}, "--mode: unknown mode"},
		{[]string{"--queries", "q", "--mode", "keyword", "--compare"}, "--compare needs two modes or more"},
		{[]string{"--queries", "q", "--mode", "keyword,hybrid", "--baseline", "fused"}, `--baseline "fused" is not among --mode keyword,hybrid`},
		{[]string{"--queries", "q", "--misses", missing}, "its directory does not exist"},
		{[]string{"--queries", "q", "--fused-weights", "{"}, "--fused-weights:"},
		{[]string{"--queries", "q", "--distro", "Not An ID!"}, "--distro:"},
		{[]string{"--queries", "q", "extra"}, `unexpected argument "extra"`},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		ran := false
		err := evalCmd(t, NewCmdEval(f, func(*EvalOptions) error { ran = true; return nil }), c.args...)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) || ran {
			t.Errorf("eval %q: %v (exit %d, ran %v); want exit 2 with %q", c.args, err, cmdutil.ExitCode(err), ran, c.want)
		}
	}
}
