package main

import (
	"encoding/json"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
)

// TestQueryScoresAndDocDescription: on a made-up machine (frob's page and
// a custom doc written as `index docs new` suggests), every mode's --json
// gives each command a real score, not 0, and --full each match (keyword
// mode gives the BM25 score; a compact answer's options and examples
// leave their scores out), and the custom doc's description is its
// first line of prose, not its "# NAME" heading.
func TestQueryScoresAndDocDescription(t *testing.T) {
	initGizmoMachine(t, false)
	query := func(request, mode string) querycmd.QueryResult {
		t.Helper()
		code, out, errOut := runCLI(t, "index", "query", request, "--distro", "debian-12", "--mode", mode, "--json", "-k", "3", "--full")
		if code != 0 {
			t.Fatalf("query %q --mode %s: exit %d %s", request, mode, code, errOut)
		}
		var res querycmd.QueryResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Commands) == 0 {
			t.Fatalf("query %q --mode %s: no commands", request, mode)
		}
		return res
	}
	for _, mode := range []string{"semantic", "keyword", "hybrid"} {
		res := query("twiddle the bits of files recursively", mode)
		for _, c := range res.Commands {
			if c.Score <= 0 {
				t.Errorf("--mode %s: %s has score %v", mode, c.Command, c.Score)
			}
			for _, m := range c.Matches {
				if m.Score <= 0 {
					t.Errorf("--mode %s: %s's match %s has score %v", mode, c.Command, m.ID, m.Score)
				}
				if mode == "keyword" && m.Score != m.BM25 {
					t.Errorf("--mode keyword: %s's match %s has score %v, BM25 %v: want the BM25 score", c.Command, m.ID, m.Score, m.BM25)
				}
			}
		}
		if mode == "keyword" {
			// The command's score is its keyword score: at least its best
			// chunk's BM25, not a fusion rank 1/(60+rank).
			c := res.Commands[0]
			if len(c.Matches) == 0 || c.Score < c.Matches[0].BM25 {
				t.Errorf("--mode keyword: %s scores %v, its best chunk's BM25 %+v", c.Command, c.Score, c.Matches)
			}
		}
	}
	res := query("turn widgets into gadgets", "keyword")
	if c := res.Commands[0]; c.Command != "gizmo" || c.Description != "gizmo turns widgets into gadgets." {
		t.Errorf("custom doc: %s with description %q; want gizmo with its first line of prose", c.Command, c.Description)
	}
}
