// Command dist writes the release files of one platform into -out:
//
//	cmdai_<version>_<os>_<arch>.tar.gz   cmdai_<version>_<os>_<arch>/{bin/cmdai,
//	                                     lib/cmdai/libonnxruntime.* (+ soname links),
//	                                     share/doc/cmdai/{LICENSE,THIRD_PARTY_NOTICES,README.md,BENCHMARKS.md,RELIABILITY.md,docs/}}
//	cmdai-model_all-MiniLM-L6-v2_<rev>.tar.gz   {all-MiniLM-L6-v2,cmdai-reranker}/: the model
//	                                     and the reranker, as modeldist pins them
//	SHA256SUMS                           both, in `sha256sum -c` format
//
// Byte-reproducible: entries sorted, every time the commit's (-mtime), owner
// 0/0 without names, modes 0755/0644, gzip header without time or name.
// `make dist` builds the binary (-trimpath, -buildid=) and the notices and
// runs it. GoReleaser was not used for the archive step; see the release
// notes in docs/ci-and-releases.md ("Releases").
package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship/modeldist"
)

type options struct {
	version, goos, goarch             string
	bin, libDir, model, reranker, out string
	docs                              []string
	mtime                             int64
}

func main() {
	var o options
	var docs string
	flag.StringVar(&o.version, "version", "", "the version in the archive's name (no leading v)")
	flag.StringVar(&o.goos, "os", runtime.GOOS, "the platform's GOOS")
	flag.StringVar(&o.goarch, "arch", runtime.GOARCH, "the platform's GOARCH")
	flag.StringVar(&o.bin, "bin", "", "the built cmdai binary")
	flag.StringVar(&o.libDir, "lib", "", "the directory holding libonnxruntime.* (its soname links are kept)")
	flag.StringVar(&o.model, "model", "", "the model directory (.tools/model/all-MiniLM-L6-v2); empty: no model tarball")
	flag.StringVar(&o.reranker, "reranker", "", "the reranker directory (.tools/model/cmdai-reranker); needed with -model")
	flag.StringVar(&docs, "docs", "", "comma-separated files and directories (kept whole, by name) for share/doc/cmdai/")
	flag.StringVar(&o.out, "out", "dist", "the output directory")
	flag.Int64Var(&o.mtime, "mtime", 0, "the time of every entry, in Unix seconds (the commit's)")
	flag.Parse()
	o.docs = strings.Split(docs, ",")
	if o.version == "" || o.bin == "" || o.libDir == "" || docs == "" || o.mtime <= 0 {
		fmt.Fprintln(os.Stderr, "dist: -version, -bin, -lib, -docs and -mtime are all needed")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if (o.model == "") != (o.reranker == "") {
		return fmt.Errorf("-model and -reranker go together: the model tarball carries both (make dist passes both, or neither with DIST_MODEL=)")
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("cmdai_%s_%s_%s", o.version, o.goos, o.goarch)
	files, err := layout(o, name)
	if err != nil {
		return err
	}
	archive := filepath.Join(o.out, name+".tar.gz")
	if err := safefile.WriteFile(archive, 0o644, func(w io.Writer) error { return writeTarGz(w, files, time.Unix(o.mtime, 0)) }); err != nil {
		return fmt.Errorf("write %s: %w", archive, err)
	}
	sums := []string{archive}
	if o.model != "" {
		model, err := modeldist.WriteTarball(ctx, o.model, o.reranker, o.out)
		if err != nil {
			return fmt.Errorf("model tarball: %w", err)
		}
		sums = append(sums, model)
	}
	return writeSums(filepath.Join(o.out, "SHA256SUMS"), sums...)
}

// file is one entry of the archive: a regular file from src, a symlink to
// link, or a directory.
type file struct {
	name, src, link string
	dir, exec       bool
}

// layout lists the archive's entries under top, in name order, with
// every parent directory.
func layout(o options, top string) ([]file, error) {
	files := []file{{name: top + "/bin/cmdai", src: o.bin, exec: true}}
	libs, err := filepath.Glob(filepath.Join(o.libDir, "libonnxruntime*"))
	if err != nil || len(libs) == 0 {
		return nil, fmt.Errorf("no libonnxruntime* in %s (run `make tools`)", o.libDir)
	}
	for _, l := range libs {
		st, err := os.Lstat(l)
		if err != nil {
			return nil, err
		}
		f := file{name: top + "/lib/cmdai/" + filepath.Base(l), src: l, exec: true}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(l)
			if err != nil {
				return nil, err
			}
			if strings.Contains(target, "/") {
				return nil, fmt.Errorf("%s links to %s, outside its directory", l, target)
			}
			f = file{name: f.name, link: target}
		}
		files = append(files, f)
	}
	for _, d := range o.docs {
		docs, err := docFiles(d, top+"/share/doc/cmdai/")
		if err != nil {
			return nil, err
		}
		files = append(files, docs...)
	}
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f.name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		files = append(files, file{name: d + "/", dir: true})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

// docFiles is one -docs entry as archive entries under dest: a file by
// its name, a directory (docs/) with every regular file under it at its
// path, so that README.md's relative links (docs/install.md) hold in the
// installed share/doc/cmdai/ as in the repository.
func docFiles(src, dest string) ([]file, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []file{{name: dest + filepath.Base(src), src: src}}, nil
	}
	var out []file
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file; -docs takes files and directories of files", p)
		}
		rel, err := filepath.Rel(filepath.Dir(src), p)
		if err != nil {
			return err
		}
		out = append(out, file{name: dest + filepath.ToSlash(rel), src: p})
		return nil
	})
	return out, err
}

// writeTarGz writes files with nothing from this machine in the headers.
func writeTarGz(w io.Writer, files []file, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression) // no ModTime, no Name
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		h := &tar.Header{Name: f.name, ModTime: mtime, Format: tar.FormatPAX, Mode: 0o644, Typeflag: tar.TypeReg}
		switch {
		case f.dir:
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case f.link != "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.link, 0o777
		case f.exec:
			h.Mode = 0o755
		}
		if err := addEntry(tw, h, f.src); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func addEntry(tw *tar.Writer, h *tar.Header, src string) error {
	if h.Typeflag != tar.TypeReg {
		return tw.WriteHeader(h)
	}
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil {
		return err
	}
	h.Size = st.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, r)
	return err
}

// writeSums writes SHA256SUMS for files, sorted by name.
func writeSums(out string, files ...string) error {
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	var b strings.Builder
	for _, f := range files {
		sum, _, err := packaging.FileSHA256(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(f))
	}
	return safefile.WriteBytes(out, []byte(b.String()), 0o644)
}
