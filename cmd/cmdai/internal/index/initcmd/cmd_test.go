package initcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
)

// parsed runs a build command (init or refresh) with args and returns
// the options its runF received (nil when it was not called).
func parsed(t *testing.T, newCmd newBuildCmd, env cmdtest.Env, args ...string) (*InitOptions, error) {
	t.Helper()
	f, _, _ := cmdtest.Factory(t, nil)
	var got *InitOptions
	cmd := newCmd(f, func(o *InitOptions) error { got = o; return nil })
	err := cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
	return got, err
}

// TestInitDefaults: with no flag and no variable, init asks for this
// machine's distribution, every command, one embedder and parser per CPU,
// the prose budget, the heads of long chunks, the cache, and a private
// Chroma.
func TestInitDefaults(t *testing.T) {
	o, err := parsed(t, NewCmdInit, nil)
	if err != nil || o == nil {
		t.Fatalf("init: %v (runF called: %v)", err, o != nil)
	}
	want := InitOptions{Factory: o.Factory, ProseBudget: 512, EmbedTokens: 128, Chroma: cmdutil.ChromaOptions{TokenHeader: "Authorization"}}
	if !reflect.DeepEqual(*o, want) {
		t.Errorf("options:\n got %+v\nwant %+v", *o, want)
	}
}

// TestInitFlags: every flag (and alias) lands in its option.
func TestInitFlags(t *testing.T) {
	docs := t.TempDir()
	o, err := parsed(t, NewCmdInit, nil, "--force", "-v", "--json", "--distro", "ubuntu-24.04", "--lang", "de",
		"--command", "grep", "--command", "tar", "--help-fallback", "-j", "3", "--embed-workers", "2", "--no-cache",
		"--docs", docs, "--prose-budget", "0", "--embed-tokens", "0", "--model-dir", "/m", "--model-variant", "fp32", "--embed-backend", "go",
		"--chroma-url", "http://chroma:8000", "--chroma-tenant", "t", "--chroma-database", "d", "--chroma-token", "s3cret",
		"--chroma-token-header", "X-Chroma-Token", "--chroma-bin", "/bin/chroma", "--chroma-data", "/data")
	if err != nil || o == nil {
		t.Fatalf("init: %v", err)
	}
	want := InitOptions{Factory: o.Factory, Force: true, Verbose: true, JSON: true, Distro: "ubuntu-24.04", Lang: "de",
		Commands: []string{"grep", "tar"}, HelpFallback: true, Parallel: 3, Workers: 2, NoCache: true, DocsDirs: []string{docs},
		Model:  cmdutil.ModelOptions{Dir: "/m", Variant: "fp32", Backend: "go"},
		Chroma: cmdutil.ChromaOptions{URL: "http://chroma:8000", Tenant: "t", Database: "d", Token: "s3cret", TokenHeader: "X-Chroma-Token", Bin: "/bin/chroma", DataDir: "/data"}}
	if !reflect.DeepEqual(*o, want) {
		t.Errorf("options:\n got %+v\nwant %+v", *o, want)
	}
}

// TestBuildEnvironment: the CMDAI_* variables set the flags' defaults in
// both commands; the command line wins over them.
func TestBuildEnvironment(t *testing.T) {
	env := cmdtest.Env{
		"CMDAI_DISTRO": "fedora-40", "CMDAI_LANG": "fr", "CMDAI_EMBED_WORKERS": "4", "CMDAI_PROSE_BUDGET": "64", "CMDAI_EMBED_TOKENS": "96",
		"CMDAI_JSON": "true", "CMDAI_BATCH_MODE": "1", "CMDAI_MODEL_VARIANT": "int8", "CMDAI_EMBED_BACKEND": "ort",
		"CMDAI_CHROMA_URL": "http://c:1", "CMDAI_CHROMA_TOKEN": "tok", "CMDAI_MODEL_DIR": "/models",
	}
	for _, newCmd := range []newBuildCmd{NewCmdInit, NewCmdRefresh} {
		o, err := parsed(t, newCmd, env, "--lang", "es")
		if err != nil || o == nil {
			t.Fatalf("%v", err)
		}
		if o.Distro != "fedora-40" || o.Lang != "es" || o.Workers != 4 || o.ProseBudget != 64 || o.EmbedTokens != 96 || !o.JSON || !o.BatchMode ||
			o.Model != (cmdutil.ModelOptions{Dir: "/models", Variant: "int8", Backend: "ort"}) || o.Chroma.URL != "http://c:1" || o.Chroma.Token != "tok" {
			t.Errorf("options from the environment: %+v", *o)
		}
	}
	o, err := parsed(t, NewCmdInit, cmdtest.Env{"CMDAI_HELP_FALLBACK": "true", "CMDAI_PARALLEL": "5"})
	if err != nil || !o.HelpFallback || o.Parallel != 5 {
		t.Errorf("init's own variables: %+v %v", o, err)
	}
}

// TestGlobalBatchMode: `cmdai --batch-mode index init` is batch mode too.
func TestGlobalBatchMode(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	for _, newCmd := range []newBuildCmd{NewCmdInit, NewCmdRefresh} {
		var got *InitOptions
		cmd := newCmd(f, func(o *InitOptions) error { got = o; return nil })
		if err := cmdtest.Run(t, cmdtest.Index(cmd), nil, "--batch-mode", "index", cmd.Name); err != nil || got == nil || !got.BatchMode {
			t.Errorf("%s after the global --batch-mode: %+v %v", cmd.Name, got, err)
		}
	}
}

// TestRefreshIncremental: refresh is incremental unless told not to.
func TestRefreshIncremental(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, true}, {[]string{"--incremental"}, true}, {[]string{"--incremental=false"}, false}} {
		o, err := parsed(t, NewCmdRefresh, nil, tc.args...)
		if err != nil || o == nil || o.Incremental != tc.want {
			t.Errorf("refresh %v: %+v %v; want incremental %v", tc.args, o, err, tc.want)
		}
	}
}

// TestBuildUsageErrors: each mistake is a usage error that names it, and
// the run (which would load a model and start a server) never starts.
func TestBuildUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		newCmd newBuildCmd
		args   []string
		want   string
	}{
		{NewCmdInit, []string{"grep"}, `unexpected argument "grep": cmdai index init takes no arguments; name commands with --command NAME`},
		{NewCmdRefresh, []string{"grep"}, `unexpected argument "grep"`},
		{NewCmdInit, []string{"--command", ""}, "--command needs a value"},
		{NewCmdInit, []string{"--command", " "}, "--command needs a value: an empty one names nothing"},
		{NewCmdInit, []string{"--docs", "/no/such/dir"}, "--docs /no/such/dir: not a directory"},
		{NewCmdRefresh, []string{"--docs", "/no/such/dir"}, "--docs /no/such/dir: not a directory"},
		{NewCmdInit, []string{"--parallel", "-1"}, "--parallel must be 0 or more, not -1"},
		{NewCmdInit, []string{"-j", "-2"}, "--parallel must be 0 or more, not -2"},
		{NewCmdInit, []string{"--embed-backend", "cuda"}, `--embed-backend "cuda": use ort or go`},
		{NewCmdInit, []string{"--distro", ""}, "--distro needs a value"},
		{NewCmdInit, []string{"--verbos"}, "unknown flag --verbos"},
		{NewCmdRefresh, []string{"--command", "grep"}, "unknown flag --command"},
		{NewCmdRefresh, []string{"--force"}, "unknown flag --force"},
		{NewCmdInit, []string{"--parallel", "many"}, "invalid value"},
	} {
		o, err := parsed(t, tc.newCmd, nil, tc.args...)
		if o != nil {
			t.Errorf("%v: the command ran", tc.args)
		}
		cmdtest.Usage(t, err, tc.want)
	}
}

// TestInitUnknownCommand: a --command that names nothing on $PATH is a
// usage error found before the model loads or Chroma is reached.
func TestInitUnknownCommand(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "grep"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := RunInit(t.Context(), &InitOptions{Factory: f, Distro: "debian-12", Commands: []string{"grep", "nosuchcmd"}, PathDirs: []string{bin}, ManPath: []string{t.TempDir()}})
	cmdtest.Usage(t, err, "nosuchcmd")
	if !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("%v: does not say nothing was changed", err)
	}
}

// TestInitWithoutModel: a missing model stops init with exit 5 before
// Chroma is reached; embedders opened before it are closed.
func TestInitWithoutModel(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var embeds, connects int
	f.Embedder = cmdtest.NoModel(&embeds)
	f.Connect = cmdtest.Unreachable(&connects)
	err := RunInit(t.Context(), &InitOptions{Factory: f, Workers: 3})
	cmdtest.Code(t, err, cmdutil.ExitVerification, "embedding model not installed")
	if embeds != 1 || connects != 0 {
		t.Errorf("%d embedders asked for, %d connections; want 1 and 0", embeds, connects)
	}
}

// stubEmbedder is a model that embeds nothing and counts its closing.
type stubEmbedder struct {
	backend, sha string
	closed       *int
}

func (e *stubEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("stub: no embeddings")
}
func (e *stubEmbedder) Info() embed.Info {
	return embed.Info{Model: "stub", Dims: 3, Backend: e.backend, SHA256: e.sha}
}
func (e *stubEmbedder) Close() error { *e.closed++; return nil }

// TestInitChromaDown: with the model open, an unreachable Chroma is exit
// 4 with the server's error; init opens one embedder per --embed-workers
// (one thread each), one only for the pure-Go backend, and closes them.
func TestInitChromaDown(t *testing.T) {
	for _, tc := range []struct {
		workers int
		backend string
		want    int
	}{{3, "", 3}, {2, "go", 1}, {1, "", 1}} {
		f, _, _ := cmdtest.Factory(t, nil)
		var threads []int
		closed := 0
		f.Embedder = func(_ context.Context, o cmdutil.ModelOptions, n int) (embed.Embedder, error) {
			threads = append(threads, n)
			return &stubEmbedder{backend: o.Backend, closed: &closed}, nil
		}
		var connects int
		f.Connect = cmdtest.Unreachable(&connects)
		err := RunInit(t.Context(), &InitOptions{Factory: f, Workers: tc.workers, Model: cmdutil.ModelOptions{Backend: tc.backend}})
		cmdtest.Code(t, err, cmdutil.ExitUnreachable, "does not answer")
		if len(threads) != tc.want || connects != 1 || closed != tc.want {
			t.Errorf("--embed-workers %d, backend %q: embedders with threads %v, %d closed, %d connections; want %d, %d closed, 1",
				tc.workers, tc.backend, threads, closed, connects, tc.want, tc.want)
		}
		for _, n := range threads {
			if n != 1 {
				t.Errorf("an embedder with %d threads; want 1 each", n)
			}
		}
	}
}

// TestRefreshChromaDown: refresh reaches Chroma first (it may need no
// model at all): unreachable is exit 4, and no model is opened.
func TestRefreshChromaDown(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var connects, embeds int
	f.Connect = cmdtest.Unreachable(&connects)
	f.Embedder = cmdtest.NoModel(&embeds)
	err := RunRefresh(t.Context(), &InitOptions{Factory: f})
	cmdtest.Code(t, err, cmdutil.ExitUnreachable, "does not answer")
	if connects != 1 || embeds != 0 {
		t.Errorf("%d connections, %d models; want 1 and 0", connects, embeds)
	}
}

// TestBuildDetectsDistro: without --distro init and refresh build this
// machine's index; a detection that fails says to pass --distro.
func TestBuildDetectsDistro(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var asked cmdutil.ChromaOptions
	f.Connect = func(_ context.Context, o cmdutil.ChromaOptions) (*connect.Connection, error) {
		asked = o
		return nil, cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("down"))
	}
	err := RunRefresh(t.Context(), &InitOptions{Factory: f, Chroma: cmdutil.ChromaOptions{URL: "http://x:1"}})
	cmdtest.Code(t, err, cmdutil.ExitUnreachable, "down")
	if asked.URL != "http://x:1" {
		t.Errorf("Connect asked for %+v; want the --chroma-url", asked)
	}
	f.DetectDistro = func(context.Context) (distro.Info, error) { return distro.Info{}, errors.New("no os-release") }
	for _, run := range []func(context.Context, *InitOptions) error{RunInit, RunRefresh} {
		err := run(t.Context(), &InitOptions{Factory: f})
		cmdtest.Code(t, err, cmdutil.ExitFailure, "pass --distro ID")
	}
}

// TestBuildOptions: the indexer's options from the command's: the pages
// to read, the collection, the user's docs (a broken one named on stderr
// and skipped), and the embedding cache of the model the embedders run,
// unless --no-cache or no embedder is open yet.
func TestBuildOptions(t *testing.T) {
	home, docs := t.TempDir(), t.TempDir()
	good := "---\ncommand: mytool\n---\n# mytool\n\nDoes things.\n"
	if err := os.WriteFile(filepath.Join(docs, "mytool.md"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "broken.md"), []byte("---\ncommand: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, errOut := cmdtest.Factory(t, cmdtest.Env{"CMDAI_HOME": home})
	info, _ := distro.Parse("fedora-40")
	opts := &InitOptions{Factory: f, DocsDirs: []string{docs}, Lang: "de", Commands: []string{"tar"}, Parallel: 2, ProseBudget: 64, Force: true}
	closed := 0
	emb := &embedders{opts: opts}
	bo, err := buildOptions(opts, info, emb)
	if err != nil {
		t.Fatal(err)
	}
	if bo.Collection != "cmdai_linux_fedora-40" || bo.ToolVersion != "test" || !bo.Force || bo.Pages.Lang != "de" || bo.Pages.Parallel != 2 ||
		bo.Pages.ProseBudget != 64 || !reflect.DeepEqual(bo.Pages.Commands, []string{"tar"}) || bo.Pages.Distro != info || bo.Cache != nil {
		t.Errorf("options %+v", bo)
	}
	if len(bo.Docs) != 1 || bo.Docs[0].Command != "mytool" {
		t.Errorf("docs %+v; want mytool's", bo.Docs)
	}
	if want := "cmdai: skipped " + filepath.Join(docs, "broken.md") + ": "; !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("stderr %q; want %q...", errOut, want)
	}
	emb.list = []embed.Embedder{&stubEmbedder{closed: &closed, sha: "0123456789abcdef0123"}}
	bo, err = buildOptions(opts, info, emb)
	if err != nil || bo.Cache == nil {
		t.Fatalf("with an embedder: cache %v, %v", bo.Cache, err)
	}
	bo.Cache.Close()
	dir, _ := config.EmbeddingCacheDir(f.Getenv)
	if _, err := os.Stat(filepath.Join(dir, "0123456789abcdef.vec")); err != nil || !strings.HasPrefix(dir, home) {
		t.Errorf("the cache of the embedders' model is not in %s, under the test's home: %v", dir, err)
	}
	opts.NoCache = true
	if bo, err = buildOptions(opts, info, emb); err != nil || bo.Cache != nil {
		t.Errorf("--no-cache: cache %v, %v", bo.Cache, err)
	}
}
