package statuscmd

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/stale"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/serve"
)

// runIndex runs `index ARGS` with cmd under the group, as cmdai does.
func runIndex(t *testing.T, cmd *cli.Command, env cmdtest.Env, args ...string) error {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Index(cmd), env, append([]string{"index", cmd.Name}, args...)...)
}

func TestStatusFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *StatusOptions
	status := func(env cmdtest.Env, args ...string) error {
		got = nil
		return runIndex(t, NewCmdStatus(f, func(o *StatusOptions) error { got = o; return nil }), env, args...)
	}
	if err := status(cmdtest.Env{"CMDAI_NO_SERVE": "1", "CMDAI_JSON": "true", "CMDAI_CHROMA_DATA": "/d"}, "--detailed", "--verify", "--distro", "fedora-40"); err != nil || got == nil {
		t.Fatal(err)
	}
	want := StatusOptions{Factory: f, Detailed: true, Verify: true, JSON: true, Distro: "fedora-40", NoServe: true, Chroma: cmdutil.ChromaOptions{TokenHeader: "Authorization", DataDir: "/d"}}
	if !got.AutoServe.On || got.AutoServe.Idle != cmdutil.DefaultAutoServeIdle {
		t.Errorf("auto-serve by default: %+v; want on, idle %s", got.AutoServe, cmdutil.DefaultAutoServeIdle)
	}
	want.AutoServe = got.AutoServe // its flag is internal
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("options:\n got %+v\nwant %+v", *got, want)
	}
	cmdtest.Usage(t, status(nil, "x"), `unexpected argument "x": cmdai index status takes no arguments`)
	cmdtest.Usage(t, status(nil, "--distro", "a b"), "--distro: invalid distribution id")
	if got != nil {
		t.Error("ran after a usage error")
	}
}

// TestStatusAsksServe: a running serve is asked unless the call names
// something serve does not hold (--no-serve, another Chroma); with no
// serve, the status is worked out here: an unreachable Chroma is exit 4.
func TestStatusAsksServe(t *testing.T) {
	for _, tc := range []struct {
		opts  StatusOptions
		asked bool
	}{
		{StatusOptions{}, true},
		{StatusOptions{Distro: "fedora-40"}, true},
		{StatusOptions{NoServe: true}, false},
		{StatusOptions{Chroma: cmdutil.ChromaOptions{URL: "http://c:1"}}, false},
		{StatusOptions{Chroma: cmdutil.ChromaOptions{DataDir: "/d"}}, false},
		{StatusOptions{PathDirs: []string{"/bin"}}, false},
	} {
		f, out, _ := cmdtest.Factory(t, cmdtest.Env{"PATH": "/usr/bin", "MANPATH": "/usr/share/man"})
		asked, connects := 0, 0
		f.ServeClient = func(context.Context) (*serve.Client, bool) { asked++; return nil, false }
		f.Connect = cmdtest.Unreachable(&connects)
		opts := tc.opts
		opts.Factory = f
		cmdtest.Code(t, RunStatus(t.Context(), &opts), cmdutil.ExitUnreachable, "does not answer")
		if (asked == 1) != tc.asked || connects != 1 || out.Len() != 0 {
			t.Errorf("%+v: serve asked %d times, %d connections, printed %q; want asked %v", tc.opts, asked, connects, out, tc.asked)
		}
	}
	// a relative $MANPATH entry keeps it here (serve would judge it otherwise)
	f, _, _ := cmdtest.Factory(t, cmdtest.Env{"MANPATH": "man:/usr/share/man"})
	asked, connects := 0, 0
	f.ServeClient = func(context.Context) (*serve.Client, bool) { asked++; return nil, false }
	f.Connect = cmdtest.Unreachable(&connects)
	_ = RunStatus(t.Context(), &StatusOptions{Factory: f})
	if asked != 0 || connects != 1 {
		t.Errorf("relative MANPATH: serve asked %d times, %d connections", asked, connects)
	}
}

// TestPrintStatus: the server line, each collection (current marked,
// temporary, incomplete), its staleness and, with --detailed, its
// metadata and every failed page.
func TestPrintStatus(t *testing.T) {
	built := time.Now().Add(-3 * time.Hour)
	st := IndexStatus{Current: "cmdai_linux_debian-12", Collections: []builder.CollectionStatus{
		{Name: "cmdai_linux_debian-12", Records: 900, Current: true,
			Meta:  index.Meta{Complete: true, Commands: 120, Model: "all-MiniLM-L6-v2", ModelVariant: "int8", BuiltAt: built, ModelSHA256: "abc", Dims: 384, SchemaVersion: 3, ToolVersion: "1.0", OS: "linux", Distro: "debian-12", ProseBudget: 512, Failed: map[string]string{"zz": "bad page", "aa": "no NAME"}},
			Stale: &stale.Staleness{Indexed: 120, Changed: 1, Stale: 1, Names: []string{"~tar"}}},
		{Name: "cmdai_linux_fedora-40", Records: 10, Meta: index.Meta{Commands: 3, BuiltAt: built}},
		{Name: "cmdai_tmp_x", Records: 5, Temporary: true},
	}}
	st.Server.URL, st.Server.Mode, st.Server.Version, st.Server.Healthy = "http://127.0.0.1:8765", "embedded", "1.0.0", true
	f, out, _ := cmdtest.Factory(t, nil)
	printStatus(&StatusOptions{Factory: f}, st)
	at := built.Format(time.RFC3339)
	for _, want := range []string{
		"chroma:  http://127.0.0.1:8765 (embedded, version 1.0.0) healthy\n",
		"* cmdai_linux_debian-12: 900 records, 120 commands, all-MiniLM-L6-v2 int8, built " + at + " (3h0m0s ago), complete\n",
		"; run `cmdai index refresh` to update\n",
		"  failed:   2 pages could not be indexed (--detailed lists them)\n",
		"  cmdai_linux_fedora-40: 10 records, 3 commands,  , built " + at + " (3h0m0s ago), INCOMPLETE (interrupted: run `cmdai index init` to finish)\n",
		"  cmdai_tmp_x: 5 records, temporary (left by an interrupted build or import",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "model sha256") || strings.Contains(out.String(), "~tar") {
		t.Errorf("details without --detailed:\n%s", out)
	}
	out.Reset()
	st.Server.Healthy = false
	printStatus(&StatusOptions{Factory: f, Detailed: true}, st)
	for _, want := range []string{
		") NOT answering\n",
		"  (~ changed, + new, - removed) ~tar\n",
		"  model sha256 abc, 384 dims, schema 3, tool 1.0, distro linux/debian-12\n",
		"  embedded: summaries, options and examples of every page; 512 word pieces of prose per page\n",
		"  failed:   2 pages could not be indexed (`cmdai index scan --command NAME` shows one again):\n    aa: no NAME\n    zz: bad page\n",
		"  embedded: summaries, options and examples of every page; all prose\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("detailed status lacks %q:\n%s", want, out)
		}
	}
	out.Reset()
	printStatus(&StatusOptions{Factory: f}, IndexStatus{})
	if !strings.Contains(out.String(), "no cmdai indexes on this server\n") {
		t.Errorf("empty server:\n%s", out)
	}
}

// --verify says every record of this distribution's index was checked,
// and how long the status took; nothing for a sample or another index.
func TestPrintVerified(t *testing.T) {
	st := IndexStatus{Collections: []builder.CollectionStatus{
		{Name: "cmdai_linux_debian-12", Current: true, Verification: &index.Verification{Records: 900, Metadata: "verified"}},
		{Name: "cmdai_linux_fedora-40", Verification: &index.Verification{Records: 10, Metadata: "verified"}},
	}}
	var b strings.Builder
	printVerified(&b, st, 2345*time.Millisecond)
	if want := "  verified: all 900 records match their authenticators (status took 2.3 s)\n"; b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
}
