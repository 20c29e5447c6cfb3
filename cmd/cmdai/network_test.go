package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/testnet"
)

// stallAfterHeaders answers every path with a body it promises in full
// (size bytes), sends the first part of, then stops sending; sums, when
// set, answers paths ending in ".sha256" instead.
func stallAfterHeaders(t *testing.T, size, part int, sums string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sums != "" && strings.HasSuffix(r.URL.Path, ".sha256") {
			fmt.Fprint(w, sums)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(size))
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(strings.Repeat("x", part)))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second): // a bound, not a wait
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runBounded runs the CLI and fails the test when it is still running
// after 15 s: the commands under test must not hang.
func runBounded(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code     int
		out, err string
	}
	done := make(chan res, 1)
	go func() { c, o, e := runCLI(t, args...); done <- res{c, o, e} }()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(15 * time.Second):
		t.Fatalf("cmdai %s still running after 15 s", strings.Join(args, " "))
		return 0, "", ""
	}
}

// TestDownloadStalledServer: a release server that sends headers and part
// of the tarball, then nothing, ends the download after --stall-timeout
// with exit 4, the URL and the bytes received, and the partial file kept
// for a resume.
func TestDownloadStalledServer(t *testing.T) {
	t.Setenv("CMDAI_HOME", t.TempDir())
	name := "chroma-index-debian-12.tar.gz"
	srv := stallAfterHeaders(t, 50000, 1234, strings.Repeat("ab", 32)+"  "+name+"\n")
	dir := t.TempDir()
	code, _, errOut := runBounded(t, "index", "download", "debian-12", "--base-url", srv.URL, "--dir", dir, "--stall-timeout", "1s")
	if code != cmdutil.ExitUnreachable {
		t.Errorf("exit %d, want %d: %s", code, cmdutil.ExitUnreachable, errOut)
	}
	part := filepath.Join(dir, name+".part")
	for _, want := range []string{"fetch " + srv.URL + "/" + name, "no data for 1s after 1234 bytes of 50000", "kept in " + part, "run the same command again to resume"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error does not say %q:\n%s", want, errOut)
		}
	}
	if st, err := os.Stat(part); err != nil || st.Size() != 1234 {
		t.Errorf("partial download not kept: %v", err)
	}
	// CMDAI_IDLE_TIMEOUT sets it too; a timeout of 0 is a usage error
	t.Setenv("CMDAI_IDLE_TIMEOUT", "1s")
	if code, _, errOut := runBounded(t, "index", "download", "debian-12", "--base-url", srv.URL, "--dir", dir); code != cmdutil.ExitUnreachable {
		t.Errorf("with CMDAI_IDLE_TIMEOUT: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "index", "download", "debian-12", "--base-url", srv.URL, "--stall-timeout", "0s"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "--stall-timeout") {
		t.Errorf("--stall-timeout 0s: exit %d %s", code, errOut)
	}
}

// TestModelPullStalledServer: the model pull has the same bound.
func TestModelPullStalledServer(t *testing.T) {
	t.Setenv("CMDAI_HOME", t.TempDir())
	srv := stallAfterHeaders(t, 9000, 100, "")
	dst := filepath.Join(t.TempDir(), "model")
	code, _, errOut := runBounded(t, "model", "pull", "--url", srv.URL, "--model-dir", dst, "--stall-timeout", "1s")
	if code != cmdutil.ExitUnreachable || !strings.Contains(errOut, "no data for 1s after 100 bytes of 9000") || !strings.Contains(errOut, srv.URL) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("a stalled pull installed something")
	}
}

// TestDownloadUnreachable: a release location where nothing listens is
// exit 4 (unreachable), naming the URL, not a generic failure.
func TestDownloadUnreachable(t *testing.T) {
	t.Setenv("CMDAI_HOME", t.TempDir())
	base := "http://" + testnet.ClosedPort(t) + "/rel"
	for _, args := range [][]string{{"--list"}, {"debian-12"}} {
		code, _, errOut := runBounded(t, append([]string{"index", "download", "--base-url", base}, args...)...)
		if code != cmdutil.ExitUnreachable || !strings.Contains(errOut, base) {
			t.Errorf("download %v: exit %d %s", args, code, errOut)
		}
	}
}
