package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTree is a binary, an ORT lib with its soname links and a doc.
func fakeTree(t *testing.T) options {
	t.Helper()
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(dir, "cmdai"), []byte("binary"), 0o700)
	os.WriteFile(filepath.Join(lib, "libonnxruntime.so.1.2.3"), []byte("ort"), 0o600)
	os.Symlink("libonnxruntime.so.1.2.3", filepath.Join(lib, "libonnxruntime.so.1"))
	os.Symlink("libonnxruntime.so.1.2.3", filepath.Join(lib, "libonnxruntime.so"))
	os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("licence"), 0o600)
	return options{version: "1.0.0", goos: "linux", goarch: "amd64", bin: filepath.Join(dir, "cmdai"), libDir: lib,
		docs: []string{filepath.Join(dir, "LICENSE")}, mtime: 1700000000}
}

// TestArchiveIsReproducible: two runs give the same bytes, whatever the
// files' own times and modes; the entries are the agreed layout with
// fixed headers, the soname links stay links.
func TestArchiveIsReproducible(t *testing.T) {
	o := fakeTree(t)
	var archives [][]byte
	for i := 0; i < 2; i++ {
		o.out = t.TempDir()
		if err := run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(o.out, "cmdai_1.0.0_linux_amd64.tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		archives = append(archives, b)
		sums, _ := os.ReadFile(filepath.Join(o.out, "SHA256SUMS"))
		if !strings.HasSuffix(string(sums), "  cmdai_1.0.0_linux_amd64.tar.gz\n") || len(sums) != 64+2+len("cmdai_1.0.0_linux_amd64.tar.gz")+1 {
			t.Errorf("SHA256SUMS: %q", sums)
		}
		os.Chtimes(o.bin, time.Unix(1, 0), time.Unix(1, 0)) // the next run sees another mtime
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("two runs gave different archives")
	}
	zr, err := gzip.NewReader(bytes.NewReader(archives[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header has time %v name %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.ModTime.Unix() != o.mtime {
			t.Errorf("%s: uid %d gid %d uname %q time %v", h.Name, h.Uid, h.Gid, h.Uname, h.ModTime)
		}
		got = append(got, h.Name+" "+h.FileInfo().Mode().String()+" "+h.Linkname)
	}
	want := []string{
		"cmdai_1.0.0_linux_amd64/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/bin/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/bin/cmdai -rwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/lib/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/lib/cmdai/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/lib/cmdai/libonnxruntime.so Lrwxrwxrwx libonnxruntime.so.1.2.3",
		"cmdai_1.0.0_linux_amd64/lib/cmdai/libonnxruntime.so.1 Lrwxrwxrwx libonnxruntime.so.1.2.3",
		"cmdai_1.0.0_linux_amd64/lib/cmdai/libonnxruntime.so.1.2.3 -rwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/share/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/share/doc/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/share/doc/cmdai/ drwxr-xr-x ",
		"cmdai_1.0.0_linux_amd64/share/doc/cmdai/LICENSE -rw-r--r-- ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLibLinkOutsideIsRefused(t *testing.T) {
	o := fakeTree(t)
	os.Symlink("/usr/lib/libonnxruntime.so", filepath.Join(o.libDir, "libonnxruntime.so.9"))
	o.out = t.TempDir()
	if err := run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "outside its directory") {
		t.Errorf("a link out of the lib dir: %v", err)
	}
}

// TestModelNeedsReranker: the model tarball carries the model and the
// reranker, so one without the other is refused before anything is written.
func TestModelNeedsReranker(t *testing.T) {
	for _, dirs := range [][2]string{{"model", ""}, {"", "reranker"}} {
		o := fakeTree(t)
		o.model, o.reranker, o.out = dirs[0], dirs[1], t.TempDir()
		if err := run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "go together") {
			t.Errorf("-model %q -reranker %q: %v", dirs[0], dirs[1], err)
		}
		if left, _ := os.ReadDir(o.out); len(left) != 0 {
			t.Errorf("-model %q -reranker %q wrote %v", dirs[0], dirs[1], left)
		}
	}
}

// TestDocsDirectoryKeepsItsPaths: a directory given to -docs is carried
// whole under its own name, so README.md's links (docs/install.md,
// docs/benchmarks/x.svg) resolve in share/doc/cmdai/ too.
func TestDocsDirectoryKeepsItsPaths(t *testing.T) {
	o := fakeTree(t)
	docs := filepath.Join(filepath.Dir(o.bin), "docs")
	os.MkdirAll(filepath.Join(docs, "benchmarks"), 0o755)
	os.WriteFile(filepath.Join(docs, "install.md"), []byte("# install"), 0o600)
	os.WriteFile(filepath.Join(docs, "benchmarks", "chart.svg"), []byte("<svg/>"), 0o600)
	o.docs = append(o.docs, docs)
	files, err := layout(o, "top")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if strings.HasPrefix(f.name, "top/share/doc/cmdai/") && !f.dir {
			names = append(names, f.name)
		}
	}
	want := "top/share/doc/cmdai/LICENSE top/share/doc/cmdai/docs/benchmarks/chart.svg top/share/doc/cmdai/docs/install.md"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("doc entries: %s\nwant: %s", got, want)
	}
	os.Symlink("install.md", filepath.Join(docs, "link.md"))
	if _, err := layout(o, "top"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a symlink under a docs directory: %v, want it refused", err)
	}
}
