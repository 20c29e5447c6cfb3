package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/packaging"
)

// noStartEnv makes any start of the private Chroma server visible: the
// "chroma" executable is a script that leaves a marker file and fails. A
// model, were one loaded, is missing (exit 5, not 2). It returns the
// marker's path.
func noStartEnv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	marker := filepath.Join(dir, "chroma-was-started")
	bin := filepath.Join(dir, "chroma")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CMDAI_HOME", filepath.Join(dir, "home"))
	t.Setenv("CMDAI_CHROMA_BIN", bin)
	t.Setenv("CMDAI_MODEL_DIR", filepath.Join(dir, "no-model"))
	t.Setenv("CMDAI_RELEASE_URL", filepath.Join(dir, "no-release"))
	t.Setenv("CMDAI_MODEL_URL", filepath.Join(dir, "no-hub")) // never the network
	// Empty environment variables mean "unset", not an empty value.
	for _, k := range []string{"CMDAI_CHROMA_URL", "CMDAI_CHROMA_DATA", "CMDAI_DISTRO", "CMDAI_JSON", "CMDAI_BATCH_MODE", "CMDAI_QUERY_MODE"} {
		t.Setenv(k, "")
	}
	return marker
}

// TestUsageErrorsStartNothing: every way of calling a command wrongly
// exits 2 with a message, before a Chroma server starts or a model loads.
func TestUsageErrorsStartNothing(t *testing.T) {
	marker := noStartEnv(t)
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"query":"count lines","command":"wc"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(t.TempDir(), "chroma-index-debian-12.tar.gz")
	if err := os.WriteFile(tarball, []byte("not read: the call is wrong before that"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another distribution's index, off a terminal without --yes: its
	// manifest alone decides that the call is incomplete.
	here, err := distro.Detect(context.Background())
	if err != nil {
		t.Fatalf("detect this machine's distribution: %v", err)
	}
	modelDir, other := otherDistroTarball(t, here.ID)
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"index", "clear", "other-name", "--confirm"}, `unexpected argument "other-name"`},
		{[]string{"index", "clear", "--confirm", "--distro", ""}, "--distro needs a value"},
		{[]string{"index", "clear", "--confirm", "--distro=  "}, "--distro needs a value"},
		{[]string{"index", "clear", "--confirm", "--all", "--distro", "debian-12"}, "--all"},
		{[]string{"index", "clear", "--confirm", "--distro", "Debian 12"}, "--distro"},
		{[]string{"index", "clear", "--confirm", "--chroma-data", ""}, "--chroma-data needs a value"},
		{[]string{"index", "query", ""}, "say what you want to do"},
		{[]string{"serve", "--wait", "-1s"}, "--wait must be 0"},
		{[]string{"index", "query", "  ", "\t"}, "say what you want to do"},
		{[]string{"index", "query", "list files", "--mode", "fuzzy"}, "fuzzy"},
		{[]string{"index", "query", "list files", "-k", "0"}, "-k"},
		{[]string{"index", "query", "list files", "--context", "--max-tokens", "0"}, "--max-tokens"},
		{[]string{"index", "query", "list files", "--distro", "Debian 12"}, "--distro"},
		{[]string{"index", "query", "list files", "--model-variant", "fp16"}, "--model-variant"},
		{[]string{"index", "query", "list files", "--embed-backend", "gpu"}, "--embed-backend"},
		{[]string{"index", "query", "list files", "--chroma-url", ""}, "--chroma-url needs a value"},
		{[]string{"index", "init", "extra"}, `unexpected argument "extra"`},
		{[]string{"index", "init", "--distro", ""}, "--distro needs a value"},
		{[]string{"index", "init", "--command", ""}, "--command"},
		{[]string{"index", "init", "--command", "no-such-command-here"}, "not found on PATH: no-such-command-here"},
		{[]string{"index", "init", "--command", "../bin/ls"}, "not found on PATH"},
		{[]string{"index", "init", "--docs", ""}, "--docs"},
		{[]string{"index", "init", "--docs", "/no-such-dir-here"}, "--docs /no-such-dir-here"},
		{[]string{"index", "refresh", "--docs", "/no-such-dir-here"}, "--docs /no-such-dir-here"},
		{[]string{"index", "clear"}, "pass --confirm"},
		{[]string{"index", "clear", "--all"}, "pass --confirm"},
		{[]string{"index", "init", "--embed-workers", "-1"}, "--embed-workers"},
		{[]string{"index", "init", "--parallel", "-2"}, "--parallel"},
		{[]string{"index", "init", "--prose-budget", "-1"}, "--prose-budget"},
		{[]string{"index", "init", "--embed-tokens", "-1"}, "--embed-tokens"},
		{[]string{"index", "init", "--model-variant", "fp16"}, "--model-variant"},
		{[]string{"index", "init", "--distro", "Debian 12"}, "--distro"},
		{[]string{"index", "refresh", "extra"}, `unexpected argument "extra"`},
		{[]string{"index", "refresh", "--incremental=false", "--model-variant", "fp16"}, "--model-variant"},
		{[]string{"index", "refresh", "--docs", ""}, "--docs"},
		{[]string{"index", "status", "extra"}, `unexpected argument "extra"`},
		{[]string{"index", "status", "--distro", ""}, "--distro needs a value"},
		{[]string{"index", "export"}, "say where"},
		{[]string{"index", "export", ""}, "say where"},
		{[]string{"index", "export", "a.tar.gz", "b.tar.gz"}, `unexpected argument "b.tar.gz"`},
		{[]string{"index", "export", "a.tar.gz", "--distro", "Debian 12"}, "--distro"},
		{[]string{"index", "export", "/no-such-dir-here/a.tar.gz"}, "/no-such-dir-here"},
		{[]string{"model", "export", "/no-such-dir-here/m.tar.gz"}, "/no-such-dir-here"},
		{[]string{"index", "import"}, "say which tarball"},
		{[]string{"index", "import", tarball, "extra"}, `unexpected argument "extra"`},
		{[]string{"index", "import", tarball, "--distro", "Debian 12"}, "--distro"},
		{[]string{"index", "import", tarball, "--write-batch", "-1"}, "--write-batch"},
		{[]string{"index", "import", other, "--allow-unsigned", "--model-dir", modelDir}, "pass --yes"},
		{[]string{"index", "download"}, "say which distribution"},
		{[]string{"index", "download", "debian-12", "extra"}, `unexpected argument "extra"`},
		{[]string{"index", "download", "Debian 12"}, "Debian 12"},
		{[]string{"index", "download", "--list", "debian-12"}, "--list"},
		{[]string{"index", "download", "debian-12", "--base-url", ""}, "--base-url needs a value"},
		{[]string{"index", "eval", "extra", "--queries", queries}, `unexpected argument "extra"`},
		{[]string{"index", "eval", "--queries", ""}, "--queries needs a value"},
		{[]string{"index", "eval", "--queries", queries, "-k", "0"}, "-k"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "semantic,fuzzy"}, "fuzzy"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "fused", "--fused-weights", `{"pages": 1}`}, `--fused-weights: fused weights "{\"pages\": 1}": json: unknown field "pages"`},
		{[]string{"index", "eval", "--queries", queries, "--mode", "fused", "--fused-weights", `{"named": -1}`}, "named is -1: weights are 0 or more"},
		{[]string{"index", "eval", "--queries", queries, "--distro", "Debian 12"}, "--distro"},
		{[]string{"index", "eval", "--queries", queries, "--mode", " , "}, "name one mode"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "semantic", "--compare"}, "--compare needs two modes"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "semantic,hybrid", "--baseline", "keyword"}, `--baseline "keyword" is not among`},
		{[]string{"index", "eval", "--queries", queries, "--misses", "/no-such-dir-here/m.jsonl"}, "/no-such-dir-here"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "learned", "--features", "/no-such-dir-here/f.jsonl"}, "--features /no-such-dir-here/f.jsonl: its directory does not exist"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "learned", "--learned-weights", "/no-such-dir-here/w.json"}, "--learned-weights: learned weights"},
		{[]string{"index", "eval", "--queries", queries, "--mode", "learned", "--adapter", "/no-such-dir-here/a.adapter"}, "--adapter: adapter: open /no-such-dir-here/a.adapter: no such file"},
		{[]string{"index", "eval", "--queries", queries, "--adapter", queries}, "not an adapter file"},
		{[]string{"index", "eval", "--queries", queries, "--adapter", queries, "--no-rerank"}, "drop --no-rerank"},
		{[]string{"index", "eval", "--queries", queries, "--vectors", "/no-such-dir-here/v.jsonl"}, "--vectors /no-such-dir-here/v.jsonl: its directory does not exist"},
		{[]string{"index", "scan", "extra"}, `unexpected argument "extra"`},
		{[]string{"index", "scan", "--distro", ""}, "--distro needs a value"},
		{[]string{"index", "scan", "--command", ""}, "--command"},
		{[]string{"index", "docs", "new"}, "say which command"},
		{[]string{"index", "docs", "new", "a", "b"}, `unexpected argument "b"`},
		{[]string{"index", "docs", "new", "kubectl", "--dir", ""}, "--dir needs a value"},
		{[]string{"index", "docs", "bogus"}, `unknown command "bogus"`},
		{[]string{"index", "bogus"}, `unknown command "bogus"`},
		{[]string{"model", "bogus"}, `unknown command "bogus"`},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"help", "bogus"}, `unknown command "bogus" for "cmdai" (see "cmdai --help")`},
		{[]string{"index", "help", "bogus"}, `unknown command "bogus" for "cmdai index" (see "cmdai index --help")`},
		{[]string{"index", "qurey"}, `unknown command "qurey" for "cmdai index"; did you mean "query"? (see "cmdai index --help")`},
		{[]string{"idnex", "status"}, `unknown command "idnex" for "cmdai"; did you mean "index"? (see "cmdai --help")`},
		{[]string{"help", "idnex"}, `did you mean "index"?`},
		{[]string{"index", "query", "count lines", "--jsno"}, `unknown flag --jsno for "cmdai index query"; did you mean --json? (see "cmdai index query --help")`},
		{[]string{"--batch-mod", "index", "status"}, `did you mean --batch-mode?`},
		{[]string{"model", "status", "extra"}, `unexpected argument "extra"`},
		{[]string{"model", "status", "--model-dir", ""}, "--model-dir needs a value"},
		{[]string{"model", "import"}, "model import"},
		{[]string{"model", "import", "a", "b"}, `unexpected argument "b"`},
		{[]string{"model", "pull", "extra"}, `unexpected argument "extra"`},
		{[]string{"model", "pull", "--url", ""}, "--url needs a value"},
		{[]string{"model", "export"}, "say where"},
		{[]string{"model", "export", "a", "b"}, `unexpected argument "b"`},
	}
	for _, tc := range cases {
		code, out, errOut := runCLI(t, tc.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, cmdutil.ExitUsage, tc.want)
		}
		if out != "" {
			t.Errorf("%q: printed %q on stdout", tc.args, out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%q started a Chroma server", tc.args)
			os.Remove(marker)
		}
	}

	// A tarball that is no index, or an index of another model, fails its
	// verification (exit 5), also before a server starts.
	if err := os.WriteFile(filepath.Join(modelDir, embed.ManifestFile), []byte(`{"name":"all-MiniLM-L6-v2","dims":384,"files":{"model.onnx":"`+strings.Repeat("cd", 32)+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "import", tarball, "--allow-unsigned"}, "not a gzip file"},
		{[]string{"index", "import", other, "--allow-unsigned", "--model-dir", modelDir, "--yes"}, "install the same model"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != cmdutil.ExitVerification || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, cmdutil.ExitVerification, tc.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%q started a Chroma server", tc.args)
			os.Remove(marker)
		}
	}

	// The harness sees a start: a correct call does start the server.
	code, _, errOut := runCLI(t, "index", "status")
	if _, err := os.Stat(marker); err != nil || code != cmdutil.ExitUnreachable {
		t.Errorf("index status: exit %d (%s), server started: %v; the test cannot see a start", code, errOut, err == nil)
	}
}

// otherDistroTarball writes a one-record index tarball of a distribution
// other than here, and an installed-model manifest it matches (the model
// check passes; no model file is loaded by an import). It returns the
// model directory and the tarball's path.
func otherDistroTarball(t *testing.T, here string) (modelDir, tarball string) {
	t.Helper()
	id := "ubuntu-24.04"
	if here == id {
		id = "debian-12"
	}
	dir := t.TempDir()
	modelDir = filepath.Join(dir, "model")
	sha := strings.Repeat("ab", 32)
	mm, err := json.Marshal(embed.Manifest{Name: embed.ModelName, Dims: embed.Dims, Files: map[string]string{"model.onnx": sha}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(modelDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(modelDir, embed.ManifestFile), mm, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := distro.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	m := packaging.Manifest{Distro: info.ID, OS: info.OS, Collection: info.CollectionName(),
		Model:   packaging.Model{Name: embed.ModelName, Dims: embed.Dims, SHA256: sha, Variant: embed.VariantFP32},
		BuiltAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	rec := packaging.Record{ID: "frob#0", Document: "frob: frobnicate files", Metadata: map[string]any{"command": "frob"}, Embedding: make([]float32, embed.Dims)}
	rec.Embedding[0] = 1
	tarball = filepath.Join(dir, "chroma-index-"+id+".tar.gz")
	f, err := os.Create(tarball)
	if err != nil {
		t.Fatal(err)
	}
	if err := packaging.Write(context.Background(), f, m, []packaging.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return modelDir, tarball
}

// TestEveryCommandRefusesStrayArguments walks the command tree, so that a
// command added later is held to the same rule: one argument more than it
// takes is a usage error that starts nothing.
func TestEveryCommandRefusesStrayArguments(t *testing.T) {
	marker := noStartEnv(t)
	// The arguments each command takes, before the stray one.
	takes := map[string][]string{
		"cmdai index scan":     nil,
		"cmdai index init":     nil,
		"cmdai index refresh":  nil,
		"cmdai index status":   nil,
		"cmdai index clear":    {"--confirm"},
		"cmdai index export":   {"out.tar.gz"},
		"cmdai index import":   {"in.tar.gz"},
		"cmdai index download": {"debian-12"},
		"cmdai index eval":     {"--queries", "q.jsonl"},
		"cmdai index docs new": {"kubectl"},
		"cmdai serve":          nil,
		"cmdai model status":   nil,
		"cmdai model import":   {"model-dir"},
		"cmdai model pull":     nil,
		"cmdai model export":   {"out.tar.gz"},
		"cmdai mcp":            nil,
		"cmdai doctor":         nil,
		"cmdai explain":        {"ls -l"},
		"cmdai show":           {"git", "commit"}, // a subcommand as run: two words at most
		"cmdai completion":     {"bash"},
		"cmdai exit-codes":     nil, // help topics
		"cmdai config":         nil,
		"cmdai __man":          nil,
		"cmdai index query":    nil, // every argument is the request
		"cmdai search":         nil, // index query's
		"cmdai index docs":     nil, // groups: an unknown subcommand
		"cmdai index":          nil,
		"cmdai model":          nil,
		"cmdai":                nil,
	}
	var seen []string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			path := append(append([]string{}, prefix...), c.Name)
			name := strings.Join(path, " ")
			seen = append(seen, name)
			walk(path, c.Subcommands)
			if name == "cmdai index query" || name == "cmdai search" {
				continue
			}
			args, ok := takes[name]
			if !ok {
				t.Errorf("%s: no entry in this test: say what arguments it takes", name)
				continue
			}
			full := append(append(append([]string{}, path[1:]...), args...), "stray-arg")
			code, _, errOut := runCLI(t, full...)
			if code != cmdutil.ExitUsage || !strings.Contains(errOut, `"stray-arg"`) {
				t.Errorf("%q: exit %d, stderr %q; want %d naming the stray argument", full, code, errOut, cmdutil.ExitUsage)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("%q started a Chroma server", full)
				os.Remove(marker)
			}
		}
	}
	io, _, _ := testIO()
	app := newApp(cmdutil.NewFactory(io, os.Getenv, ""))
	walk([]string{"cmdai"}, app.Commands)
	// The app itself.
	code, _, errOut := runCLI(t, "stray-arg")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, `"stray-arg"`) {
		t.Errorf("cmdai stray-arg: exit %d, stderr %q", code, errOut)
	}
	sort.Strings(seen)
	if len(seen) < 15 {
		t.Errorf("walked only %v", seen)
	}
}
