package embed

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mholt/archiver/v4"

	"github.com/cmdai/cmdai/internal/netwait"
	"github.com/cmdai/cmdai/internal/safefile"
)

// Install verifies the model in src and installs it as dst, atomically:
// the files are copied into a temporary directory beside dst, checked
// again there, and only then swapped in. A failed install leaves the
// model that was in dst untouched.
func Install(src, dst string) (Manifest, error) { return install(src, dst, embedder) }

func install(src, dst string, k kind) (Manifest, error) {
	m, err := verify(src, "", k)
	if err != nil {
		return m, fmt.Errorf("model to import, %s: %w", src, err)
	}
	if !m.HasVariant(VariantFP32) && !m.HasVariant(VariantInt8) {
		return m, fmt.Errorf("%w: %s has neither model.onnx nor model_int8.onnx", k.corrupt, src)
	}
	if cur, err := verify(dst, "", k); err == nil && sameFiles(cur, m) {
		return m, nil // already installed, and intact
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return m, fmt.Errorf("install model: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-")
	if err != nil {
		return m, fmt.Errorf("install model: %w", err)
	}
	defer os.RemoveAll(tmp)
	for name := range m.Files {
		if err := safefile.CopyFile(filepath.Join(src, name), filepath.Join(tmp, name), 0o644); err != nil {
			return m, fmt.Errorf("install model: %w", err)
		}
	}
	if err := safefile.CopyFile(filepath.Join(src, ManifestFile), filepath.Join(tmp, ManifestFile), 0o644); err != nil {
		return m, fmt.Errorf("install model: %w", err)
	}
	if _, err := verify(tmp, "", k); err != nil {
		return m, fmt.Errorf("install model: the copy does not verify (disk full?): %w", err)
	}
	if err := swapDir(tmp, dst); err != nil {
		return m, fmt.Errorf("install model: %w", err)
	}
	return m, nil
}

func sameFiles(a, b Manifest) bool {
	if len(a.Files) != len(b.Files) {
		return false
	}
	for name, sum := range a.Files {
		if !strings.EqualFold(b.Files[name], sum) {
			return false
		}
	}
	return true
}

// swapDir replaces dst by src with renames, so that at every moment dst
// is either the old model or the new one.
func swapDir(src, dst string) error {
	old := ""
	if _, err := os.Stat(dst); err == nil {
		old = dst + ".old-" + fmt.Sprint(time.Now().UnixNano())
		if err := os.Rename(dst, old); err != nil {
			return err
		}
	}
	if err := os.Rename(src, dst); err != nil {
		if old != "" {
			_ = os.Rename(old, dst)
		}
		return err
	}
	// The swap is durable only once the parent directory is on disk.
	if err := safefile.SyncDir(filepath.Dir(dst)); err != nil {
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Import installs a model from a directory or a tarball (.tar, .tar.gz,
// ... anything archiver identifies) holding manifest.json at its top or
// in one top-level directory.
func Import(ctx context.Context, src, dst string) (Manifest, error) {
	return ImportEither(ctx, src, func(string) (string, error) { return dst, nil })
}

// ImportEither is Import of the embedding model or the reranker, whichever
// src holds (its manifest's name says), into dstFor(that name).
func ImportEither(ctx context.Context, src string, dstFor func(name string) (string, error)) (Manifest, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return Manifest{}, fmt.Errorf("import model: %w", err)
	}
	if fi.IsDir() {
		return installEither(src, dstFor)
	}
	tmp, err := os.MkdirTemp("", "cmdai-model-import-")
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(tmp)
	if err := extract(ctx, src, tmp); err != nil {
		return Manifest{}, fmt.Errorf("import model from %s: %w", src, err)
	}
	dir, err := findManifestDir(tmp)
	if err != nil {
		return Manifest{}, fmt.Errorf("import model from %s: %w", src, err)
	}
	return installEither(dir, dstFor)
}

// installEither installs the reranker when src's manifest names it, else
// the embedding model (whose checks then say what is wrong with src).
func installEither(src string, dstFor func(string) (string, error)) (Manifest, error) {
	k := embedder
	if m, err := readManifest(src, reranker); err == nil && m.Name == RerankerName {
		k = reranker
	}
	dst, err := dstFor(k.name)
	if err != nil {
		return Manifest{}, err
	}
	return install(src, dst, k)
}

// extract unpacks regular files of an archive into dir, refusing entries
// that would land outside it.
func extract(ctx context.Context, archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	format, stream, err := archiver.Identify(filepath.Base(archive), f)
	if err != nil {
		return fmt.Errorf("not an archive cmdai can read (want .tar or .tar.gz): %w", err)
	}
	ex, ok := format.(archiver.Extractor)
	if !ok {
		return fmt.Errorf("%s archives cannot be extracted", format.Name())
	}
	return ex.Extract(ctx, stream, nil, func(ctx context.Context, af archiver.File) error {
		name := path.Clean(strings.TrimPrefix(af.NameInArchive, "./"))
		if af.IsDir() || !af.Mode().IsRegular() {
			return nil // directories are made as needed; links are not followed
		}
		if name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) || strings.Count(name, "/") > 1 {
			return fmt.Errorf("archive entry %q is outside the model directory", af.NameInArchive)
		}
		out := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		rc, err := af.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		w, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, rc); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	})
}

func findManifestDir(root string) (string, error) {
	if _, err := os.Stat(filepath.Join(root, ManifestFile)); err == nil {
		return root, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(root, e.Name(), ManifestFile)); err == nil {
				return filepath.Join(root, e.Name()), nil
			}
		}
	}
	return "", fmt.Errorf("%w: no %s at the top of the archive or in its top directory", ErrNoModel, ManifestFile)
}

// HubURL is where `cmdai model pull` downloads from: the model's own
// repository on the Hugging Face hub, which ships an ONNX export.
const HubURL = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main"

// hubFiles maps installed names to their paths in the hub repository.
var hubFiles = map[string]string{
	"model.onnx":              "onnx/model.onnx",
	"tokenizer.json":          "tokenizer.json",
	"config.json":             "config.json",
	"tokenizer_config.json":   "tokenizer_config.json",
	"special_tokens_map.json": "special_tokens_map.json",
	"vocab.txt":               "vocab.txt",
}

// Pull downloads the model from baseURL (HubURL for real users) and
// installs it as dst. For online machines only: nothing else in cmdai
// needs the network. A file that receives no byte for idle
// (netwait.DefaultIdleTimeout when 0) ends the pull with a netwait.ErrIdle.
func Pull(ctx context.Context, client *http.Client, baseURL, dst string, idle time.Duration) (Manifest, error) {
	if client == nil {
		client = netwait.NewClient(idle)
	}
	tmp, err := os.MkdirTemp("", "cmdai-model-pull-")
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(tmp)
	for name, rel := range hubFiles {
		if err := download(ctx, client, strings.TrimSuffix(baseURL, "/")+"/"+rel, filepath.Join(tmp, name), idle); err != nil {
			return Manifest{}, fmt.Errorf("pull model: %w (offline? use `cmdai model import DIR|TAR`)", err)
		}
	}
	m := Manifest{Name: ModelName, Dims: Dims, MaxSeqLength: MaxSeqLength, Pooling: "mean", Normalize: true, Source: baseURL}
	if err := WriteManifest(tmp, m); err != nil {
		return m, err
	}
	return Install(tmp, dst)
}

func download(ctx context.Context, client *http.Client, url, dst string, idle time.Duration) error {
	// The idle reader cancels this context when the body stalls.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return netwait.Network(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	body := netwait.NewIdleReader(resp.Body, idle, cancel)
	defer body.Close()
	if n, err := io.Copy(f, body); err != nil {
		f.Close()
		of := "of unknown size"
		if resp.ContentLength >= 0 {
			of = fmt.Sprintf("of %d", resp.ContentLength)
		}
		return netwait.Network(fmt.Errorf("fetch %s: %w after %d bytes %s", url, err, n, of))
	}
	return f.Close()
}
