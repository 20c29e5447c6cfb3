package main

// Integration tests of replacing an index (issue #15, part 6): a bad
// argument changes nothing, an interrupted --force leaves the old index
// answering, and a query never answers from an empty or half index as if
// all were well.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/statuscmd"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
)

// smallInit builds the index of the made-up machine (frob, unfrob) and
// returns the options used, for more runs.
func smallInit(t *testing.T) *initcmd.InitOptions {
	t.Helper()
	bin, man, _ := fakeMachine(t)
	io, _, errOut := testIO()
	opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
		ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(context.Background(), opts); err != nil {
		t.Fatalf("init: %v\n%s", err, errOut)
	}
	return opts
}

// TestForceWithUnknownCommandKeepsIndex: `init --force --command <typo>`
// is a usage error that names the typo, and the index keeps every record.
func TestForceWithUnknownCommandKeepsIndex(t *testing.T) {
	realEnv(t)
	base := smallInit(t)
	n := records(t, "--distro", "debian-12")
	if n == 0 {
		t.Fatal("the first init wrote nothing")
	}
	io, _, _ := testIO()
	opts := *base
	opts.IO, opts.Force, opts.Commands = io, true, []string{"frob", "frbo", "nosuch"}
	err := initcmd.RunInit(context.Background(), &opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || err == nil || !strings.Contains(err.Error(), "frbo, nosuch") || !strings.Contains(err.Error(), "$PATH") {
		t.Errorf("init --force --command frbo: exit %d, %v; want a usage error naming frbo and nosuch", cmdutil.ExitCode(err), err)
	}
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after the refused init --force: %d records, want %d", got, n)
	}
}

// cancelOn is an ErrOut that cancels a build when it reports progress:
// an interruption at a known point, without timing.
type cancelOn struct {
	cancel context.CancelFunc
	buf    strings.Builder
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), `"event":"progress"`) {
		c.cancel()
	}
	return c.buf.Write(p)
}

// queryFrob asks the index something only frob answers.
func queryFrob(t *testing.T, extra ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, append([]string{"index", "query", "descend into directories and frobnicate", "--distro", "debian-12", "-k", "1"}, extra...)...)
}

// collectionNames lists the cmdai collections on the private server.
func collectionNames(t *testing.T) []string {
	t.Helper()
	code, out, errOut := runCLI(t, "index", "status", "--json", "--distro", "debian-12")
	if code != 0 && code != cmdutil.ExitNoIndex {
		t.Fatalf("status: exit %d %s", code, errOut)
	}
	var st statuscmd.IndexStatus
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	var names []string
	for _, c := range st.Collections {
		names = append(names, c.Name)
	}
	return names
}

// TestInterruptedForceKeepsIndex: an `init --force` interrupted mid-build
// leaves the previous index whole and answering; the next run finishes
// and leaves no temporary collection behind.
func TestInterruptedForceKeepsIndex(t *testing.T) {
	realEnv(t)
	base := smallInit(t)
	n := records(t, "--distro", "debian-12")
	if code, out, errOut := queryFrob(t); code != 0 || !strings.HasPrefix(out, "1. frob") {
		t.Fatalf("query before: exit %d %s %s", code, out, errOut)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	io, _, _ := testIO()
	errOut := &cancelOn{cancel: cancel}
	io.ErrOut = errOut
	opts := *base
	opts.IO, opts.Force, opts.BatchMode = io, true, true
	if err := initcmd.RunInit(ctx, &opts); err == nil {
		t.Fatalf("the interrupted init --force succeeded: %s", errOut.buf.String())
	}
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after the interrupted init --force: %d records, want %d", got, n)
	}
	if code, out, errOut := queryFrob(t); code != 0 || !strings.HasPrefix(out, "1. frob") {
		t.Errorf("query after the interrupted init --force: exit %d %s %s", code, out, errOut)
	}
	// status shows what was left aside as such, not as an index
	code, out, _ := runCLI(t, "index", "status", "--distro", "debian-12")
	if code != 0 || !strings.Contains(out, "* cmdai_linux_debian-12: ") || !strings.Contains(out, "cmdai_linux_debian-12__build: ") || !strings.Contains(out, "temporary") {
		t.Errorf("status after the interrupted init --force: exit %d\n%s", code, out)
	}

	// The next run completes the new index and swaps it in.
	io, _, stderr := testIO()
	opts.IO, opts.BatchMode = io, false
	if err := initcmd.RunInit(context.Background(), &opts); err != nil {
		t.Fatalf("init --force again: %v %s", err, stderr)
	}
	if got := records(t, "--distro", "debian-12"); got != n {
		t.Errorf("after init --force: %d records, want %d", got, n)
	}
	if names := collectionNames(t); strings.Join(names, " ") != "cmdai_linux_debian-12" {
		t.Errorf("collections after init --force: %v", names)
	}
}

// TestInterruptedFirstBuildIsNoIndex: a first build interrupted leaves no
// half index to answer from: query says there is none (exit 3); the
// next init finishes it.
func TestInterruptedFirstBuildIsNoIndex(t *testing.T) {
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	io, _, _ := testIO()
	errOut := &cancelOn{cancel: cancel}
	io.ErrOut = errOut
	opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man}, BatchMode: true,
		ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(ctx, opts); err == nil {
		t.Fatalf("the interrupted init succeeded: %s", errOut.buf.String())
	}
	for _, extra := range [][]string{nil, {"--json"}, {"--context"}} {
		code, out, stderr := queryFrob(t, extra...)
		if extra != nil && extra[0] == "--json" {
			checkJSONError(t, "query --json after an interrupted first build", code, out, stderr)
			out = ""
		}
		if code != cmdutil.ExitNoIndex || out != "" || !strings.Contains(stderr, "cmdai index init") {
			t.Errorf("query %v after an interrupted first build: exit %d, stdout %q, stderr %s", extra, code, out, stderr)
		}
	}
	io, _, stderr := testIO()
	opts.IO, opts.BatchMode = io, false
	if err := initcmd.RunInit(context.Background(), opts); err != nil {
		t.Fatalf("init again: %v %s", err, stderr)
	}
	if code, out, errOut := queryFrob(t); code != 0 || !strings.HasPrefix(out, "1. frob") {
		t.Errorf("query after the finished init: exit %d %s %s", code, out, errOut)
	}
	if names := collectionNames(t); strings.Join(names, " ") != "cmdai_linux_debian-12" {
		t.Errorf("collections after init: %v", names)
	}
}

// TestQueryEmptyOrIncompleteIndex: a collection with no records, or one
// whose build never finished, is not answered from: exit 3 and what to
// run, nothing on stdout in every output mode but --json's error object.
func TestQueryEmptyOrIncompleteIndex(t *testing.T) {
	realEnv(t)
	srvURL := startRemote(t)
	ctx := context.Background()
	root, err := config.DataRoot(os.Getenv)
	need(t, err)
	// written as cmdai writes (its metadata sealed with this home's key)
	st, err := chroma.Connect(ctx, chroma.Config{URL: srvURL, Auth: index.NewRecordKey(filepath.Join(root, index.KeyFileName))})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	model, err := embed.Verify(os.Getenv("CMDAI_MODEL_DIR"), "")
	need(t, err)
	meta := index.Meta{Model: embed.ModelName, Dims: 384, ModelSHA256: model.ModelSHA256(embed.DefaultVariant), ModelVariant: embed.DefaultVariant, SchemaVersion: index.SchemaVersion,
		Distro: "debian-12", OS: "linux", Complete: true}
	if _, err := st.CreateCollection(ctx, "cmdai_linux_debian-12", meta.Map()); err != nil {
		t.Fatal(err)
	}
	check := func(what, want string) {
		t.Helper()
		for _, extra := range [][]string{nil, {"--json"}, {"--context"}} {
			code, out, stderr := queryFrob(t, append(extra, "--chroma-url", srvURL)...)
			if extra != nil && extra[0] == "--json" {
				checkJSONError(t, "query --json on "+what, code, out, stderr)
				out = ""
			}
			if code != cmdutil.ExitNoIndex || out != "" || !strings.Contains(stderr, want) || !strings.Contains(stderr, "cmdai index init") {
				t.Errorf("query %v on %s: exit %d, stdout %q, stderr %s", extra, what, code, out, stderr)
			}
		}
	}
	check("an empty index", "empty")

	meta.Complete = false
	c, err := st.CreateCollection(ctx, "cmdai_linux_debian-12", meta.Map())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetMetadata(ctx, meta.Map()); err != nil {
		t.Fatal(err)
	}
	vec := make([]float32, 384)
	vec[0] = 1
	if err := c.Upsert(ctx, []chroma.Record{{ID: "frob.1#NAME", Document: "frob - frobnicate", Metadata: map[string]any{"command": "frob", "kind": "summary"}, Embedding: vec}}); err != nil {
		t.Fatal(err)
	}
	check("an incomplete index", "incomplete")
}

// TestRestrictedBuildIncludesDocs: `init --command frob` indexes the
// user's doc for frob with frob's page, and leaves the docs of other
// commands in the index as they are.
func TestRestrictedBuildIncludesDocs(t *testing.T) {
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "frob.md"), []byte("---\ncommand: frob\n---\n\n# frob at our site\n\nfrob polishes the brass doorknobs of the server room.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "deployctl.md"), []byte("---\ncommand: deployctl\n---\n\n# deployctl ships our services to the staging cluster\n"), 0o644)
	initWith := func(commands ...string) {
		t.Helper()
		io, _, errOut := testIO()
		opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man}, DocsDirs: []string{docs},
			Commands: commands, ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
		if err := initcmd.RunInit(context.Background(), opts); err != nil {
			t.Fatalf("init %v: %v\n%s", commands, err, errOut)
		}
	}
	ask := func(request string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "index", "query", request, "--distro", "debian-12", "--json", "-k", "1")
		if code != 0 {
			t.Fatalf("query %q: exit %d %s", request, code, errOut)
		}
		return out
	}
	initWith("frob")
	if out := ask("polish the brass doorknobs"); !strings.Contains(out, `"command":"frob"`) || !strings.Contains(out, `"source":"custom"`) {
		t.Errorf("init --command frob left out the user's doc for frob: %s", out)
	}
	if out := ask("ship services to the staging cluster"); strings.Contains(out, "deployctl") {
		t.Errorf("init --command frob indexed another command's doc: %s", out)
	}
	initWith()
	initWith("frob")
	if out := ask("ship services to the staging cluster"); !strings.Contains(out, `"command":"deployctl"`) {
		t.Errorf("init --command frob removed another command's doc: %s", out)
	}
}

// TestInterruptedUpdateKeepsAnswering: an init over a complete index
// updates it in place; interrupted, the index still holds every command
// (old or new) and answers, and status says what is stale.
func TestInterruptedUpdateKeepsAnswering(t *testing.T) {
	realEnv(t)
	base := smallInit(t)
	// a new page for frob: the update has something to do
	page := filepath.Join(base.ManPath[0], "man1", "frob.1.gz")
	src, err := os.ReadFile(repoFile("manparse/testdata/frob.1"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "Descend into directories", "Descend into every directory", 1)
	writeGz(t, page, changed)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	io, _, _ := testIO()
	errOut := &cancelOn{cancel: cancel}
	io.ErrOut = errOut
	opts := *base
	opts.IO, opts.BatchMode = io, true
	if err := initcmd.RunInit(ctx, &opts); err == nil {
		t.Fatalf("the interrupted init succeeded: %s", errOut.buf.String())
	}
	if code, out, errOut := queryFrob(t); code != 0 || !strings.HasPrefix(out, "1. frob") {
		t.Errorf("query after an interrupted update: exit %d %s %s", code, out, errOut)
	}
}

// writeGz writes text gzipped to path, with a time after the last build's
// so that the page's fingerprint changes.
func writeGz(t *testing.T, path, text string) {
	t.Helper()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Minute)
	os.Chtimes(path, future, future)
}
