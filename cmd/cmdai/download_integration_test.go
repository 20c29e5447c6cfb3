package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// releaseServer serves a release directory the way GitHub releases do,
// with ranges, plus the misbehaviours the download must survive.
type releaseServer struct {
	dir    string
	mu     sync.Mutex
	ranges []string // Range headers seen for tarballs
	cutOne bool     // cut the next full tarball response halfway
}

func (s *releaseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/moved/"):
		http.Redirect(w, r, "/rel/"+strings.TrimPrefix(r.URL.Path, "/moved/"), http.StatusFound)
		return
	case strings.HasPrefix(r.URL.Path, "/bad/") && strings.HasSuffix(r.URL.Path, ".sha256"):
		fmt.Fprintf(w, "%s  %s\n", strings.Repeat("ab", 32), filepath.Base(r.URL.Path[:len(r.URL.Path)-7]))
		return
	}
	name := filepath.Base(r.URL.Path)
	f, err := os.Open(filepath.Join(s.dir, name))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, _ := f.Stat()
	if strings.HasSuffix(name, ".tar.gz") {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		cut := s.cutOne && r.Header.Get("Range") == ""
		s.cutOne = s.cutOne && !cut
		s.mu.Unlock()
		if cut {
			// promise the whole file, send half, drop the connection
			w.Header().Set("Content-Length", fmt.Sprint(st.Size()))
			w.WriteHeader(http.StatusOK)
			buf := make([]byte, st.Size()/2)
			f.Read(buf)
			w.Write(buf)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
	}
	http.ServeContent(w, r, name, time.Time{}, f)
}

// TestDownload: list, a download cut halfway and resumed, a redirect, a
// wrong checksum, an unknown distribution, and local mirrors.
func TestDownload(t *testing.T) {
	realEnv(t)
	initSmall(t)
	n := records(t)
	rel := t.TempDir()
	if code, _, errOut := runCLI(t, "index", "export", rel, "--distro", "debian-12"); code != 0 {
		t.Fatal(errOut)
	}
	tarball := filepath.Join(rel, "chroma-index-debian-12.tar.gz")
	// a release holds the merged checksums, not the per-file ones
	sum, _ := os.ReadFile(tarball + ".sha256")
	os.Remove(tarball + ".sha256")
	os.WriteFile(filepath.Join(rel, "checksums.txt"), append([]byte(strings.Repeat("0", 64)+"  chroma-index-macos-14.tar.gz\n"), sum...), 0o644)

	rs := &releaseServer{dir: rel, cutOne: true}
	srv := httptest.NewServer(rs)
	defer srv.Close()
	downloads := t.TempDir()
	dl := func(args ...string) (int, string, string) {
		// this build pins no release key: what it downloads is unsigned
		return runCLI(t, append([]string{"index", "download", "--dir", downloads, "--allow-unsigned"}, args...)...)
	}

	code, out, errOut := dl("--list", "--base-url", srv.URL+"/rel")
	if code != 0 || !strings.Contains(out, "debian-12") || !strings.Contains(out, "macos-14") {
		t.Errorf("list: exit %d %s %s", code, out, errOut)
	}

	runCLI(t, "index", "clear", "--confirm")
	code, _, errOut = dl("debian-12", "--base-url", srv.URL+"/rel")
	if code == 0 || !strings.Contains(errOut, "again to resume") {
		t.Fatalf("cut download: exit %d %s", code, errOut)
	}
	part, err := os.Stat(filepath.Join(downloads, "chroma-index-debian-12.tar.gz.part"))
	if err != nil || part.Size() == 0 {
		t.Fatalf("no partial file after the cut: %v", err)
	}
	code, out, errOut = dl("debian-12", "--base-url", srv.URL+"/rel")
	if code != 0 || !strings.Contains(out, "imported") {
		t.Fatalf("resumed download: exit %d %s %s", code, out, errOut)
	}
	if want := fmt.Sprintf("bytes=%d-", part.Size()); len(rs.ranges) != 2 || rs.ranges[1] != want {
		t.Errorf("range requests %q, want the second to be %q", rs.ranges, want)
	}
	if got := records(t); got != n {
		t.Errorf("downloaded index: %d records, want %d", got, n)
	}
	data, _ := os.ReadFile(filepath.Join(downloads, "chroma-index-debian-12.tar.gz"))
	h := sha256.Sum256(data)
	if !strings.HasPrefix(string(sum), hex.EncodeToString(h[:])) {
		t.Error("the resumed file differs from the published one")
	}

	// redirect (GitHub sends release assets elsewhere), verify only
	os.RemoveAll(downloads)
	code, _, errOut = dl("debian-12", "--base-url", srv.URL+"/moved", "--validate")
	if code != 0 {
		t.Errorf("through a redirect: exit %d %s", code, errOut)
	}

	// a checksum that does not match: refused, the file removed, the
	// index untouched
	os.RemoveAll(downloads)
	code, _, errOut = dl("debian-12", "--base-url", srv.URL+"/bad")
	if code != cmdutil.ExitVerification || !strings.Contains(errOut, "checksum mismatch") {
		t.Errorf("wrong checksum: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(downloads, "chroma-index-debian-12.tar.gz")); err == nil {
		t.Error("a file that failed verification was kept")
	}
	if got := records(t); got != n {
		t.Errorf("after a refused download: %d records, want %d", got, n)
	}

	// listed nowhere / listed but missing (404)
	code, _, errOut = dl("fedora-40", "--base-url", srv.URL+"/rel")
	if code == 0 || !strings.Contains(errOut, "no index for fedora-40") || !strings.Contains(errOut, "--list") {
		t.Errorf("unknown distribution: exit %d %s", code, errOut)
	}
	code, _, errOut = dl("macos-14", "--base-url", srv.URL+"/rel")
	if code == 0 || !strings.Contains(errOut, "no index for macos-14") {
		t.Errorf("listed but missing: exit %d %s", code, errOut)
	}
	// a location with no checksums at all
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	defer empty.Close()
	code, _, errOut = dl("debian-12", "--base-url", empty.URL)
	if code != cmdutil.ExitVerification || !strings.Contains(errOut, "unverifiable") {
		t.Errorf("no checksums: exit %d %s", code, errOut)
	}

	// a mirror directory that is not there; a tarball that is not there
	missing := filepath.Join(t.TempDir(), "nope")
	for _, args := range [][]string{{"--list", "--base-url", missing}, {"debian-12", "--base-url", missing}} {
		if code, _, errOut := dl(args...); code != 1 || !strings.Contains(errOut, "is not a directory") {
			t.Errorf("download %v: exit %d %s", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "index", "import", missing+".tar.gz"); code != 1 || !strings.Contains(errOut, "is not a tarball to import") {
		t.Errorf("import of a missing file: exit %d %s", code, errOut)
	}

	// local mirrors: a directory and a file:// URL
	for _, base := range []string{rel, "file://" + rel} {
		os.RemoveAll(downloads)
		if code, _, errOut := dl("debian-12", "--base-url", base, "--validate"); code != 0 {
			t.Errorf("mirror %s: exit %d %s", base, code, errOut)
		}
	}
}
