package main

// Subcommand pages end to end, on our own fixture machine with the real
// model and Chroma: init indexes frob-push(1) as "frob push" and leaves
// frob-helper(1) (a program of its own) out, status stays current, a
// changed subcommand page is picked up by refresh, explain judges the
// subcommand's options by its own page, and a query answers with it.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/stale"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/statuscmd"
)

// subPage writes a fixture page whose SYNOPSIS is synopsis and whose
// OPTIONS hold one entry.
func subPage(t *testing.T, man, name, synopsis, option, help string) string {
	t.Helper()
	src := ".TH " + strings.ToUpper(name) + " 1\n.SH NAME\n" + name + " \\- " + help + "\n.SH SYNOPSIS\n.nf\n" + synopsis +
		"\n.fi\n.SH DESCRIPTION\n" + help + ".\n.SH OPTIONS\n.TP\n.B " + option + "\n" + help + ", even when it loses work.\n"
	path := filepath.Join(man, "man1", name+".1")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSubcommandPages(t *testing.T) {
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	push := subPage(t, man, "frob-push", "frob push [\\-\\-force] REMOTE", "\\-\\-force", "upload the frobbed objects to a remote")
	subPage(t, man, "frob-helper", "frob-helper [\\-\\-quiet]", "\\-\\-quiet", "help frob")
	// another name of frob-helper's page, and a subcommand-named link to
	// frob's own page: neither is a subcommand, and status must know both
	for link, target := range map[string]string{"frob-helpme.1": "frob-helper.1", "frob-same.1.gz": "frob.1.gz"} {
		if err := os.Symlink(target, filepath.Join(man, "man1", link)); err != nil {
			t.Fatal(err)
		}
	}
	// explain checks the commands of this machine's index on $PATH
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := context.Background()

	io, out, errOut := testIO()
	initOpts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), PathDirs: []string{bin}, ManPath: []string{man},
		ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(ctx, initOpts); err != nil {
		t.Fatalf("init: %v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), "indexed 1 commands (+1 aliases, +1 subcommand pages)") {
		t.Errorf("init summary:\n%s", out)
	}

	stale := func() *stale.Staleness {
		t.Helper()
		io, out, _ := testIO()
		err := statuscmd.RunStatus(ctx, &statuscmd.StatusOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), JSON: true,
			PathDirs: []string{bin}, ManPath: []string{man}})
		if err != nil {
			t.Fatal(err)
		}
		var st statuscmd.IndexStatus
		if err := json.Unmarshal(out.Bytes(), &st); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		cur := currentCollection(st)
		if cur == nil || cur.Stale == nil {
			t.Fatalf("status: %s", out)
		}
		return cur.Stale
	}
	// frob-helper, read and left out, is remembered: nothing is new
	if st := stale(); st.Stale != 0 || st.Indexed != 2 {
		t.Errorf("after init: %+v, want 2 indexed (frob, frob-push) and nothing stale", st)
	}

	code, text, stderr := runCLI(t, "explain", "--check", "frob push --force origin")
	if code != 0 || !strings.Contains(text, "frob-push(1)") || !strings.Contains(text, "--force") {
		t.Errorf("explain frob push --force: exit %d\n%s%s", code, text, stderr)
	}
	if code, text, _ := runCLI(t, "explain", "--check", "frob push --forse origin"); code != cmdutil.ExitUnknownOption || !strings.Contains(text, "unknown option") {
		t.Errorf("explain frob push --forse: exit %d, want %d\n%s", code, cmdutil.ExitUnknownOption, text)
	}

	code, text, stderr = runCLI(t, "index", "query", "--json", "upload frobbed objects to a remote")
	if code != 0 {
		t.Fatalf("query: exit %d\n%s", code, stderr)
	}
	var res querycmd.QueryResult
	if err := json.Unmarshal([]byte(text), &res); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(res.Commands) == 0 || res.Commands[0].Command != "frob-push" || res.Commands[0].Parent != "frob" {
		t.Errorf("query: %s", text)
	}
	if code, text, _ = runCLI(t, "index", "query", "upload frobbed objects to a remote"); code != 0 || !strings.Contains(text, "frob push") {
		t.Errorf("query (text): exit %d\n%s", code, text)
	}

	// a changed subcommand page is stale, and refresh re-reads it alone
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(push, later, later); err != nil {
		t.Fatal(err)
	}
	if st := stale(); st.Changed != 1 || st.Stale != 1 {
		t.Errorf("after touching frob-push's page: %+v, want 1 changed", st)
	}
	io, out, errOut = testIO()
	refresh := *initOpts
	refresh.Factory, refresh.JSON = cmdutil.NewFactory(io, os.Getenv, ""), true
	if err := initcmd.RunRefresh(ctx, &refresh); err != nil {
		t.Fatalf("refresh: %v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), `"changed":["frob-push"]`) {
		t.Errorf("refresh: %s", out)
	}
	if st := stale(); st.Stale != 0 {
		t.Errorf("after refresh: %+v", st)
	}
}
