package main

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
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/statuscmd"
	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

// TestRefreshKeepsHelpIndexed: what `index init --help-fallback` read
// from a command's --help (helpy, no man page) stays: status judges it by
// its executable's fingerprint (not "removed"), a refresh with nothing
// changed keeps its records, a changed helpy is read again from its --help
// (remembered in its records, the flag not given again), and only an
// uninstalled helpy is removed. A command without a man page that init
// did not index (nodoc) is not new to status: refresh has nothing to run.
func TestRefreshKeepsHelpIndexed(t *testing.T) {
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	ctx := context.Background()
	opts := func(io *cmdutil.IOStreams) *initcmd.InitOptions {
		return &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), JSON: true, Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
			ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	}
	io, _, errOut := testIO()
	init := opts(io)
	init.Commands, init.HelpFallback = []string{"helpy", "frob"}, true
	if err := initcmd.RunInit(ctx, init); err != nil {
		t.Fatalf("init --help-fallback: %v %s", err, errOut)
	}
	status := func() *stale.Staleness {
		t.Helper()
		io, out, errOut := testIO()
		err := statuscmd.RunStatus(ctx, &statuscmd.StatusOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", JSON: true, Detailed: true,
			PathDirs: []string{bin}, ManPath: []string{man}})
		if err != nil {
			t.Fatalf("status: %v %s", err, errOut)
		}
		var st statuscmd.IndexStatus
		if err := json.Unmarshal(out.Bytes(), &st); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		cur := currentCollection(st)
		if cur == nil || cur.Stale == nil {
			t.Fatalf("status: no current collection or staleness: %s", out)
		}
		return cur.Stale
	}
	refresh := func() builder.RefreshSummary {
		t.Helper()
		io, out, errOut := testIO()
		if err := initcmd.RunRefresh(ctx, opts(io)); err != nil {
			t.Fatalf("refresh: %v %s", err, errOut)
		}
		var sum builder.RefreshSummary
		if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return sum
	}
	helpyOptions := func() string {
		t.Helper()
		res, code, errOut := queryJSON(t, "--full", "-k", "5", "helpy: make a file helpful, say nothing, say everything")
		if code != 0 {
			t.Fatalf("query: exit %d %s", code, errOut)
		}
		var opts []string
		for _, c := range res.Commands {
			if c.Command != "helpy" {
				continue
			}
			for _, m := range c.Matches {
				if m.Option != "" {
					opts = append(opts, m.Option)
				}
			}
		}
		return strings.Join(opts, " ")
	}

	if st := status(); st.Indexed != 2 || st.Stale != 0 || len(st.Names) != 0 {
		t.Errorf("status after init --help-fallback: %+v; want 2 indexed, nothing stale (helpy not removed)", st)
	}
	if sum := refresh(); !sum.Plan.Empty() || sum.Deleted != 0 || sum.Build != nil {
		t.Errorf("refresh with nothing changed: %+v deleted %d; want nothing done", sum.Plan, sum.Deleted)
	}
	if got := helpyOptions(); got != "--quiet" {
		t.Fatalf("helpy's options after refresh: %q, want --quiet", got)
	}

	// helpy is upgraded: a new option in its --help
	ran := helpyRan(bin)
	os.Remove(ran)
	// (a new file: a fixture's may be the test binary's, never written)
	helpy := filepath.Join(bin, "helpy")
	if err := os.Remove(helpy); err != nil {
		t.Fatal(err)
	}
	helpfixture.Copy(t, bin, "helpy", helpyScript(bin, "echo '  -v, --verbose   say everything'\n"))
	future := time.Now().Add(time.Minute)
	os.Chtimes(helpy, future, future)
	if st := status(); st.Changed != 1 || st.Removed != 0 || strings.Join(st.Names, " ") != "~helpy" {
		t.Errorf("status after upgrading helpy: %+v; want it changed", st)
	}
	sum := refresh()
	if strings.Join(sum.Plan.Changed, " ") != "helpy" || len(sum.Plan.Removed)+len(sum.Plan.Added) != 0 || sum.Build == nil || sum.Build.Commands != 1 {
		t.Errorf("refresh after upgrading helpy: %+v %+v; want helpy read again", sum.Plan, sum.Build)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("refresh did not run helpy's --help again: %v", err)
	}
	if got := helpyOptions(); got != "--quiet --verbose" && got != "--verbose --quiet" {
		t.Errorf("helpy's options after the refresh: %q, want --quiet and --verbose", got)
	}
	if st := status(); st.Stale != 0 {
		t.Errorf("status after the refresh: %+v; want nothing stale", st)
	}

	// uninstalled: now it is removed
	os.Remove(helpy)
	if sum := refresh(); strings.Join(sum.Plan.Removed, " ") != "helpy" || sum.Deleted == 0 {
		t.Errorf("refresh after removing helpy: %+v deleted %d", sum.Plan, sum.Deleted)
	}
}
