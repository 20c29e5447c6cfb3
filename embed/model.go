package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/internal/filehash"
	"github.com/cmdai/cmdai/internal/safefile"
)

// ModelName is the one model cmdai embeds with.
const ModelName = "all-MiniLM-L6-v2"

// Dims is the length of its vectors.
const Dims = 384

// MaxSeqLength is sentence-transformers' limit for this model: longer
// inputs are truncated to 256 word pieces, [CLS] and [SEP] included.
const MaxSeqLength = 256

// ManifestFile lists a model directory's files and their sha256s.
const ManifestFile = "manifest.json"

// Model variants: the ONNX file each uses.
const (
	VariantFP32 = "fp32"
	// DefaultVariant is what ONNX Runtime runs unless told otherwise.
	DefaultVariant = VariantInt8
	VariantInt8    = "int8"
)

var variantFiles = map[string]string{VariantFP32: "model.onnx", VariantInt8: "model_int8.onnx"}

// Manifest describes an installed model. Its file hashes are checked on
// every load, so a truncated or swapped file is refused, not used.
type Manifest struct {
	Name         string            `json:"name"`
	Dims         int               `json:"dims"`
	MaxSeqLength int               `json:"max_seq_length"`
	Pooling      string            `json:"pooling,omitempty"`
	Normalize    bool              `json:"normalize"`
	Source       string            `json:"source,omitempty"`
	Files        map[string]string `json:"files"`
}

// ErrNoModel means the model is not installed where it was looked for.
var ErrNoModel = errors.New("embedding model not installed")

// ErrCorruptModel means an installed file does not match the manifest.
var ErrCorruptModel = errors.New("embedding model files do not match their manifest")

// fixHint says how to get a good model onto this machine.
const fixHint = "install it with `cmdai model pull` online, `cmdai model import DIR|TAR` on an air-gapped machine, or `make install` in a cmdai checkout; `cmdai doctor` checks every part"

// ReadManifest reads dir/manifest.json of the embedding model.
func ReadManifest(dir string) (Manifest, error) { return readManifest(dir, embedder) }

// kind is one of the models cmdai runs: its manifest name, what its
// errors call it, and how to get a good copy.
type kind struct {
	name, what    string
	none, corrupt error
	fix           string
}

var embedder = kind{ModelName, "model", ErrNoModel, ErrCorruptModel, fixHint}

func readManifest(dir string, k kind) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return m, fmt.Errorf("%w in %s: %s", k.none, dir, k.fix)
	}
	if err != nil {
		return m, fmt.Errorf("read %s manifest: %w", k.what, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: %s: %v; %s", k.corrupt, filepath.Join(dir, ManifestFile), err, k.fix)
	}
	if m.Name != k.name || m.Dims != Dims {
		return m, fmt.Errorf("%w: %s holds %q with %d dims, want %s with %d; %s", k.corrupt, dir, m.Name, m.Dims, k.name, Dims, k.fix)
	}
	if len(m.Files) == 0 {
		return m, fmt.Errorf("%w: %s lists no files; %s", k.corrupt, filepath.Join(dir, ManifestFile), k.fix)
	}
	return m, nil
}

// Verify checks every file the embedding model's manifest lists against
// its sha256 and that the files a variant needs are there. It returns
// the manifest.
func Verify(dir string, variant string) (Manifest, error) { return verify(dir, variant, embedder) }

func verify(dir, variant string, k kind) (Manifest, error) {
	m, err := readManifest(dir, k)
	if err != nil {
		return m, err
	}
	need := []string{"tokenizer.json", "config.json"}
	if variant != "" {
		f, ok := variantFiles[variant]
		if !ok {
			return m, fmt.Errorf("unknown model variant %q: use %s or %s", variant, VariantFP32, VariantInt8)
		}
		need = append(need, f)
	}
	if err := checkFiles(dir, m.Files, need); err != nil {
		return m, fmt.Errorf("%w: %v; %s", k.corrupt, err, k.fix)
	}
	return m, nil
}

// checkFiles checks that files lists every name in need and that each
// file it lists, a plain name in dir, has its sha256: the one check of
// the embedder's and the reranker's manifests.
func checkFiles(dir string, files map[string]string, need []string) error {
	for _, f := range need {
		if _, ok := files[f]; !ok {
			return fmt.Errorf("%s lacks %s", dir, f)
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !safeName(name) {
			return fmt.Errorf("manifest names %q, which is not a plain file name", name)
		}
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if !strings.EqualFold(sum, files[name]) {
			return fmt.Errorf("%s has sha256 %s, the manifest says %s (truncated or replaced?)",
				filepath.Join(dir, name), sum, files[name])
		}
	}
	return nil
}

// ModelSHA256 identifies the weights a variant runs: the sha256 of its
// ONNX file, recorded in collections and embedding-cache keys.
func (m Manifest) ModelSHA256(variant string) string {
	return m.Files[variantFiles[variant]]
}

// HasVariant reports whether the manifest lists the variant's ONNX file.
func (m Manifest) HasVariant(variant string) bool {
	_, ok := m.Files[variantFiles[variant]]
	return ok
}

// safeName refuses paths: a manifest must not point outside its dir.
func safeName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`) && name != ManifestFile
}

func fileSHA256(path string) (string, error) {
	sum, _, err := filehash.SHA256(path)
	return sum, err
}

// WriteManifest hashes the files in dir and writes a manifest for them
// (used by `cmdai model pull`, which downloads files without one).
func WriteManifest(dir string, m Manifest) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	m.Files = map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !safeName(e.Name()) {
			continue
		}
		sum, err := fileSHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		m.Files[e.Name()] = sum
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteBytes(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644)
}

// PickModelDir chooses the model to read: the user's installed one
// (installed, in the data root) when it has a manifest, else the one
// that shipped with cmdai (shipped, PREFIX/share/cmdai/models/<name>)
// when it has one, else installed, so that "not installed" names where
// `cmdai model import` would put it. The files are verified when loaded
// (Verify), wherever they are.
func PickModelDir(installed, shipped string) string {
	if hasManifest(installed) || shipped == "" || !hasManifest(shipped) {
		return installed
	}
	return shipped
}

func hasManifest(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ManifestFile))
	return err == nil && fi.Mode().IsRegular()
}
