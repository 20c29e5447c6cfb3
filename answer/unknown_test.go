package answer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
)

// TestUnknown (issue 46): a name the index lacks is told for what it is
// here: installed without a man page (its --help is offered), not
// installed with the installed name a typo meant (a swap of two letters
// is one edit), or not installed and near nothing.
func TestUnknown(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"grep", "find", "frobnicate-nopage", "perl"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "fnx"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := dir + string(os.PathListSeparator) + "relative/dir"
	ctx := context.Background()
	for _, c := range []struct{ name, want string }{
		{"frobnicate-nopage", "is installed but has no man page: `cmdai index init --command frobnicate-nopage --help-fallback`"},
		{"fnd", "is not installed here (no fnd on $PATH): did you mean find?"},
		{"gerp", "did you mean grep?"},
		{"ffmpeg", "ffmpeg is not installed here (no ffmpeg on $PATH)"},
	} {
		got := Unknown(ctx, c.name, path)
		if !strings.Contains(got, c.want) {
			t.Errorf("Unknown(%s) = %q, want %q", c.name, got, c.want)
		}
		if c.name == "ffmpeg" && strings.Contains(got, "did you mean") {
			t.Errorf("Unknown(ffmpeg) = %q: nothing is near it", got)
		}
	}
	// installed with a page (this machine's ls): index it
	if got := Unknown(ctx, "ls", os.Getenv("PATH")); !strings.Contains(got, "ls is installed but not in the index: add it with `cmdai index init --command ls`") {
		t.Errorf("Unknown(ls) = %q", got)
	}
	// a subcommand of an installed command: its page is what is missing
	if got := Unknown(ctx, "grep frob", path); !strings.Contains(got, "grep is installed, but the index holds no page of grep frob (its man page is grep-frob") {
		t.Errorf("Unknown(grep frob) = %q", got)
	}
	// a name that is not executable is never offered
	if got := Nearest("fnx2", path); got != "" {
		t.Errorf("Nearest(fnx2) = %q", got)
	}
	res := ExplainResult{Result: explain.Result{Commands: []explain.Command{
		{Name: "gerp", Verdict: judge.NotInstalled, Note: "not in the index"},
		{Name: "grep", Verdict: judge.Known},
	}}}
	SuggestInstalled(&res, path)
	if !strings.Contains(res.Commands[0].Note, "did you mean grep?") || res.Commands[1].Note != "" {
		t.Errorf("SuggestInstalled: %+v", res.Commands)
	}
}
