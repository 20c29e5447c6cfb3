package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/exportcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/querycmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/statuscmd"
	"github.com/cmdai/cmdai/internal/termbar"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

// TestMain lets a test run the CLI in a child process (to kill it, to
// signal it, to give it a terminal): CMDAI_TEST_CLI holds the arguments,
// one per line, and the child runs main itself. Started as a made-up
// command (helpfixture), the binary runs that command's script instead.
//
// A command's serve started in the background runs this binary as
// `cmdai serve --background ...` (os.Executable): it is cmdai then. The
// tests themselves run with CMDAI_AUTO_SERVE=false, unless a test's child
// is given another value: the app runs in this process, where a serve
// started in the background would outlive the test.
func TestMain(m *testing.M) {
	helpfixture.Main()
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		main()
	}
	if args := os.Getenv("CMDAI_TEST_CLI"); args != "" {
		if os.Getenv("CMDAI_TEST_SPINNER_NOW") == "1" {
			termbar.SpinnerDelay = 0 // a small index builds within the delay
		}
		os.Args = append([]string{"cmdai"}, strings.Split(args, "\n")...)
		main()
	}
	os.Setenv("CMDAI_AUTO_SERVE", "false")
	os.Exit(m.Run())
}

// shipCommands is a small index: enough for several requests to compete.
var shipCommands = []string{"find", "wc", "grep", "tar", "ls", "cp", "mv", "sort", "uniq", "head", "tail", "gzip", "df", "du"}

var shipRequests = []string{"find files modified in the last day", "count lines in a file", "compress a file with gzip", "show free space on mounted file systems"}

func initSmall(t *testing.T, extra ...string) {
	t.Helper()
	args := []string{"index", "init", "--batch-mode"}
	for _, c := range shipCommands {
		args = append(args, "--command", c)
	}
	if code, out, errOut := runCLI(t, append(args, extra...)...); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}
}

type answer struct {
	Command string
	Score   float64
}

// answers runs the requests and returns, per request, the commands and
// scores in order.
func answers(t *testing.T, extra ...string) [][]answer {
	t.Helper()
	var all [][]answer
	for _, r := range shipRequests {
		code, out, errOut := runCLI(t, append([]string{"index", "query", r, "--json", "-k", "5"}, extra...)...)
		if code != 0 {
			t.Fatalf("query %q: exit %d %s", r, code, errOut)
		}
		var res querycmd.QueryResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		var a []answer
		for _, c := range res.Commands {
			a = append(a, answer{c.Command, c.Score})
		}
		all = append(all, a)
	}
	return all
}

// sameAnswers compares the top three commands of each request, and the
// best one's score. Beyond that, Chroma's search is approximate (HNSW),
// and a rebuilt graph may reach a different fifth-best chunk.
func sameAnswers(t *testing.T, what string, a, b [][]answer) {
	t.Helper()
	for i := range a {
		if len(a[i]) < 3 || len(b[i]) < 3 {
			t.Errorf("%s: %q gave %v then %v", what, shipRequests[i], a[i], b[i])
			continue
		}
		for j := 0; j < 3; j++ {
			if a[i][j].Command != b[i][j].Command || (j == 0 && math.Abs(a[i][j].Score-b[i][j].Score) > 1e-5) {
				t.Errorf("%s: %q gave %v then %v", what, shipRequests[i], a[i], b[i])
				break
			}
		}
	}
}

func records(t *testing.T, extra ...string) int {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"index", "status", "--json"}, extra...)...)
	if code == cmdutil.ExitNoIndex {
		return 0
	}
	if code != 0 {
		t.Fatalf("status: exit %d %s %s", code, out, errOut)
	}
	var st statuscmd.IndexStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if c := currentCollection(st); c != nil {
		return c.Records
	}
	return 0
}

// TestExportImportRoundTrip: init -> export -> clear -> import gives the
// same counts and the same answers; a second export is byte-identical; the
// tarball loads into a second, remote Chroma; a damaged copy is refused and
// leaves the index as it was.
func TestExportImportRoundTrip(t *testing.T) {
	realEnv(t)
	initSmall(t)
	before := answers(t)
	beforeKeyword := answers(t, "--mode", "keyword")
	n := records(t)

	dir := t.TempDir()
	code, out, errOut := runCLI(t, "index", "export", dir, "--json", "--distro", "debian-12")
	if code != 0 {
		t.Fatalf("export: exit %d %s %s", code, out, errOut)
	}
	var ex exportcmd.ExportResult
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Path != filepath.Join(dir, "chroma-index-debian-12.tar.gz") || ex.Records != n || ex.Commands != len(shipCommands) {
		t.Errorf("export result %+v (records in the index %d)", ex, n)
	}
	checkManifestPackages(t, ex.Path)
	sums, err := os.ReadFile(ex.Checksums)
	if err != nil || !strings.HasSuffix(string(sums), "  chroma-index-debian-12.tar.gz\n") || !strings.HasPrefix(string(sums), ex.SHA256) {
		t.Errorf("checksums file %q (%v)", sums, err)
	}
	again := filepath.Join(t.TempDir(), "again.tar.gz")
	if code, _, errOut := runCLI(t, "index", "export", again); code != 0 {
		t.Fatalf("second export: %s", errOut)
	}
	a, _ := os.ReadFile(ex.Path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two exports of the same index differ")
	}

	if code, _, errOut := runCLI(t, "index", "clear", "--confirm"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := runCLI(t, "index", "import", ex.Path, "--allow-unsigned", "--validate"); code != 0 || !strings.Contains(out, "valid:") {
		t.Fatalf("validate: exit %d %s %s", code, out, errOut)
	}
	if records(t) != 0 {
		t.Error("--validate loaded something")
	}
	if code, out, errOut := runCLI(t, "index", "import", ex.Path, "--allow-unsigned"); code != 0 || !strings.Contains(out, "imported") {
		t.Fatalf("import: exit %d %s %s", code, out, errOut)
	}
	if got := records(t); got != n {
		t.Errorf("records after import: %d, before export: %d", got, n)
	}
	sameAnswers(t, "after import", before, answers(t))
	// the keyword index is derived from the records: it comes back with them
	sameAnswers(t, "keyword mode after import", beforeKeyword, answers(t, "--mode", "keyword"))

	// A damaged copy (one byte flipped, checksums file beside it) is
	// refused before anything is loaded; the index stays as it was.
	bad := filepath.Join(t.TempDir(), filepath.Base(ex.Path))
	a[len(a)/2] ^= 0xff
	os.WriteFile(bad, a, 0o644)
	os.WriteFile(bad+".sha256", sums, 0o644)
	code, _, errOut = runCLI(t, "index", "import", bad, "--allow-unsigned")
	if code != cmdutil.ExitVerification || !strings.Contains(errOut, "checksum") {
		t.Errorf("damaged tarball: exit %d %s", code, errOut)
	}
	// Without the checksums file, the inner checks catch it.
	os.Remove(bad + ".sha256")
	code, _, errOut = runCLI(t, "index", "import", bad, "--allow-unsigned")
	if code != cmdutil.ExitVerification || !strings.Contains(errOut, "previous index is unchanged") {
		t.Errorf("damaged tarball, no checksums file: exit %d %s", code, errOut)
	}
	if got := records(t); got != n {
		t.Errorf("records after refused imports: %d, want %d", got, n)
	}

	// --distro places a tarball as another distribution's index.
	code, _, errOut = runCLI(t, "index", "import", again, "--allow-unsigned", "--distro", "ubuntu-24.04")
	if code != 0 {
		t.Errorf("import as ubuntu-24.04: exit %d %s", code, errOut)
	}
	if got := records(t, "--distro", "ubuntu-24.04"); got != n {
		t.Errorf("ubuntu-24.04 index: %d records, want %d", got, n)
	}
	// Another distribution's tarball: refused without --yes (no terminal
	// to ask on), with what to do; taken with --yes.
	ubuntu := filepath.Join(t.TempDir(), "chroma-index-ubuntu-24.04.tar.gz")
	if code, _, errOut := runCLI(t, "index", "export", ubuntu, "--distro", "ubuntu-24.04"); code != 0 {
		t.Fatal(errOut)
	}
	runCLI(t, "index", "clear", "--confirm", "--distro", "ubuntu-24.04")
	code, _, errOut = runCLI(t, "index", "import", ubuntu, "--allow-unsigned")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--yes") || !strings.Contains(errOut, "ubuntu-24.04") {
		t.Errorf("another distribution's tarball: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "index", "import", ubuntu, "--allow-unsigned", "--yes"); code != 0 || records(t, "--distro", "ubuntu-24.04") != n {
		t.Errorf("with --yes: exit %d %s", code, errOut)
	}

	// A second, remote Chroma.
	srvURL := startRemote(t)
	url := "--chroma-url=" + srvURL
	if code, _, errOut := runCLI(t, "index", "import", ex.Path, "--allow-unsigned", url); code != 0 {
		t.Fatalf("import into a remote Chroma: %s", errOut)
	}
	sameAnswers(t, "remote", before, answers(t, url))
}

// startRemote starts a Chroma server of its own, as a team's shared one
// would be, and returns its URL; the test stops it.
func startRemote(t *testing.T) string {
	t.Helper()
	bin, _ := chroma.FindBin("", os.Getenv)
	srv, err := chroma.StartServer(context.Background(), chroma.ServerOptions{Bin: bin, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv.URL
}

// holdProxy stands between a client and a Chroma server: it passes the
// first `pass` upserts, then holds every request (held is closed) until
// release, when the held requests' connections close without an answer,
// as a server's that died would. It gives a test a point mid-load to act
// at, without polling.
type holdProxy struct {
	*httptest.Server
	held    chan struct{}
	release func()
}

func newHoldProxy(t *testing.T, target string, pass int) *holdProxy {
	t.Helper()
	// a private server's address is its socket: proxied through the
	// client that reaches it
	base, hc := chroma.HTTPClient(target, time.Minute)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = hc.Transport
	released := make(chan struct{})
	var once, heldOnce sync.Once
	var mu sync.Mutex
	upserts := 0
	p := &holdProxy{held: make(chan struct{}), release: func() { once.Do(func() { close(released) }) }}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if strings.HasSuffix(r.URL.Path, "/upsert") {
			upserts++
		}
		hold := upserts > pass
		mu.Unlock()
		if hold {
			heldOnce.Do(func() { close(p.held) })
			<-released
			panic(http.ErrAbortHandler) // closes the connection, no answer
		}
		rp.ServeHTTP(w, r)
	}))
	// released first: Close waits for the handlers
	t.Cleanup(func() { p.release(); p.Close() })
	return p
}

// TestKilledImportLeavesOldIndex: an import killed (SIGKILL) while it loads
// leaves the previous index answering as before; the next import repairs
// what it left and succeeds.
func TestKilledImportLeavesOldIndex(t *testing.T) {
	realEnv(t)
	srvURL := startRemote(t)
	url := "--chroma-url=" + srvURL
	initSmall(t, url)
	before := answers(t, url)
	n := records(t, url)
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "index", "export", dir, url, "--distro", "debian-12"); code != 0 {
		t.Fatal(errOut)
	}
	tarball := filepath.Join(dir, "chroma-index-debian-12.tar.gz")

	// Import in a child process, through a proxy that lets the first
	// upsert into the temporary collection through and holds the next:
	// the child is killed with records loaded and more to come, whatever
	// the machine's speed.
	proxy := newHoldProxy(t, srvURL, 1)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	// small batches: the load takes many upserts
	cmd.Env = append(os.Environ(), "CMDAI_TEST_CLI="+strings.Join([]string{"index", "import", tarball, "--allow-unsigned", "--chroma-url=" + proxy.URL, "--batch-mode", "--write-batch", "8"}, "\n"))
	var childErr bytes.Buffer
	cmd.Stderr = &childErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-proxy.held:
	case err := <-exited:
		t.Fatalf("the child import ended (%v) before its second upsert: %s", err, childErr.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child import did not reach its second upsert in 60 s: %s", childErr.String())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	proxy.release()
	ctx := context.Background()
	st, err := chroma.Connect(ctx, chroma.Config{URL: srvURL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if c, err := st.OpenCollection(ctx, "cmdai_linux_debian-12__import"); err != nil {
		t.Errorf("the killed import left no temporary collection: %v", err)
	} else if k, _ := c.Count(ctx); k != 8 {
		t.Errorf("the killed import loaded %d records, want the first upsert's 8", k)
	}
	if got := records(t, url); got != n {
		t.Errorf("after the killed import: %d records, want %d", got, n)
	}
	sameAnswers(t, "after a killed import", before, answers(t, url))

	// The kill left a half-loaded temporary collection; the next import
	// removes it and succeeds.
	if code, _, errOut := runCLI(t, "index", "import", tarball, "--allow-unsigned", url); code != 0 {
		t.Fatalf("import after a kill: %s", errOut)
	}
	names, _ := st.ListCollections(ctx, "cmdai_")
	if len(names) != 1 || names[0].Name != "cmdai_linux_debian-12" || names[0].Count != n {
		t.Errorf("collections after the repairing import: %+v", names)
	}

	// A kill between the swap's two renames: the index is set aside as
	// __old and the new one not yet in place. The next import puts the
	// old one back first, then replaces it.
	if err := st.RenameCollection(ctx, "cmdai_linux_debian-12", "cmdai_linux_debian-12__old"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "index", "import", tarball, "--allow-unsigned", url); code != 0 {
		t.Fatalf("import after a kill mid-swap: %s", errOut)
	}
	names, _ = st.ListCollections(ctx, "cmdai_")
	if len(names) != 1 || names[0].Name != "cmdai_linux_debian-12" || names[0].Count != n {
		t.Errorf("collections after the repairing import: %+v", names)
	}
	sameAnswers(t, "after repair", before, answers(t, url))
}

// TestImportExportSameBytes: a tarball imported and exported again is the
// same bytes: the vectors come back as the float32s written, and the
// manifest (build time, collection metadata) is the imported one.
func TestImportExportSameBytes(t *testing.T) {
	realEnv(t)
	bin, man, _ := fakeMachine(t)
	io, _, errOut := testIO()
	opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
		ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(context.Background(), opts); err != nil {
		t.Fatalf("init: %v\n%s", err, errOut)
	}
	first := filepath.Join(t.TempDir(), "first.tar.gz")
	if code, _, errOut := runCLI(t, "index", "export", first, "--distro", "debian-12"); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	if code, _, errOut := runCLI(t, "index", "clear", "--confirm", "--distro", "debian-12"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCLI(t, "index", "import", first, "--allow-unsigned", "--yes"); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	second := filepath.Join(t.TempDir(), "second.tar.gz")
	if code, _, errOut := runCLI(t, "index", "export", second, "--distro", "debian-12"); code != 0 {
		t.Fatalf("second export: %s", errOut)
	}
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if !bytes.Equal(a, b) {
		t.Errorf("export after import differs from the tarball imported (%d and %d bytes)", len(a), len(b))
		diffTarballs(t, first, second)
	}
}

// diffTarballs logs where two index tarballs differ: the manifest, or the
// first record that does and how.
func diffTarballs(t *testing.T, a, b string) {
	t.Helper()
	read := func(path string) (packaging.Manifest, map[string]packaging.Record) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs := map[string]packaging.Record{}
		m, err := packaging.Read(context.Background(), f, packaging.Limits{}, packaging.Handler{Record: func(r packaging.Record) error {
			recs[r.ID] = r
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return m, recs
	}
	ma, ra := read(a)
	mb, rb := read(b)
	ma.Files, mb.Files = nil, nil
	ja, _ := json.Marshal(ma)
	jb, _ := json.Marshal(mb)
	if !bytes.Equal(ja, jb) {
		t.Logf("manifests differ:\n%s\n%s", ja, jb)
	}
	for id, r := range ra {
		s := rb[id]
		for i := range r.Embedding {
			if i < len(s.Embedding) && r.Embedding[i] != s.Embedding[i] {
				t.Logf("record %s: embedding[%d] %v then %v", id, i, r.Embedding[i], s.Embedding[i])
				return
			}
		}
		x, _ := json.Marshal(r.Metadata)
		y, _ := json.Marshal(s.Metadata)
		if r.Document != s.Document || !bytes.Equal(x, y) {
			t.Logf("record %s:\n%s %s\n%s %s", id, r.Document, x, s.Document, y)
			return
		}
	}
}

// checkManifestPackages: the exported manifest lists the packages that own
// the indexed commands, each at the version dpkg has installed.
func checkManifestPackages(t *testing.T, tarball string) {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := packaging.ReadManifest(context.Background(), f, packaging.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"coreutils", "findutils", "grep", "tar", "gzip"} {
		want, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
		if err != nil {
			t.Fatalf("dpkg-query -W %s: %v", pkg, err)
		}
		if got, ok := m.Packages[pkg]; !ok || got != string(want) {
			t.Errorf("manifest packages[%s] = %q (listed %v), want %q (dpkg-query)", pkg, got, ok, want)
		}
	}
	if len(m.Packages) > len(shipCommands) {
		t.Errorf("manifest lists %d packages for %d commands: %v", len(m.Packages), len(shipCommands), m.Packages)
	}
}
