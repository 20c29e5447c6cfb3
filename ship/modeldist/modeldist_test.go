package modeldist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/testmode"
)

// TestPinnedMatchesBuiltModel: the sha256s pinned in the binary are those
// of the model `make model` builds and of the reranker `make reranker`
// builds, so neither can change without the other (`go generate
// ./ship/modeldist` rewrites pinned.go).
func TestPinnedMatchesBuiltModel(t *testing.T) {
	testmode.Heavy(t, "the model `make model` builds and the reranker `make reranker` builds")
	dir, rr := builtDirs()
	if err := CheckDir(dir); err != nil {
		t.Fatalf("%v\nthe model was rebuilt: run `go generate ./ship/modeldist` and commit pinned.go", err)
	}
	for _, v := range []string{embed.VariantFP32, embed.VariantInt8} {
		if _, err := embed.Verify(dir, v); err != nil {
			t.Errorf("variant %s: %v", v, err)
		}
	}
	if err := CheckRerankerDir(rr); err != nil {
		t.Fatalf("%v\nthe reranker was rebuilt: run `go generate ./ship/modeldist` and commit pinned.go", err)
	}
	if _, err := embed.VerifyReranker(rr, embed.VariantInt8); err != nil {
		t.Errorf("reranker: %v", err)
	}
	// the pins of one are not the other's
	if err := CheckRerankerDir(dir); !errors.Is(err, ErrNotPinned) {
		t.Errorf("the model passes as the reranker: %v", err)
	}
}

// builtDirs are the model and the reranker the checkout built (or
// $CMDAI_TEST_MODEL_DIR, $CMDAI_TEST_RERANKER_DIR).
func builtDirs() (model, reranker string) {
	model, reranker = os.Getenv("CMDAI_TEST_MODEL_DIR"), os.Getenv("CMDAI_TEST_RERANKER_DIR")
	if model == "" {
		model = filepath.Join("..", "..", ".tools", "model", embed.ModelName)
	}
	if reranker == "" {
		reranker = filepath.Join(filepath.Dir(model), embed.RerankerName)
	}
	return model, reranker
}

// TestRealTarballInstallsBoth: the tarball of the built model and
// reranker installs both, each verifying as what it is.
func TestRealTarballInstallsBoth(t *testing.T) {
	testmode.Heavy(t, "the model `make model` builds and the reranker `make reranker` builds")
	dir, rr := builtDirs()
	p, err := WriteTarball(context.Background(), dir, rr, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dst, rdst := filepath.Join(home, embed.ModelName), filepath.Join(home, embed.RerankerName)
	in, err := InstallTarball(context.Background(), p, dst, rdst)
	if err != nil {
		t.Fatal(err)
	}
	if in.Model.Name != embed.ModelName || in.Reranker.Name != embed.RerankerName {
		t.Errorf("installed %q and %q", in.Model.Name, in.Reranker.Name)
	}
	if err := CheckDir(dst); err != nil {
		t.Error(err)
	}
	if err := CheckRerankerDir(rdst); err != nil {
		t.Error(err)
	}
	if _, err := embed.VerifyReranker(rdst, embed.VariantInt8); err != nil {
		t.Error(err)
	}
}

// usePins swaps the pins for small made-up models (weights in their
// ONNX file) and returns the model's and the reranker's dirs. Their
// manifests are real ones, so embed's checks and install take them.
func usePins(t *testing.T, weights string) (model, reranker string) {
	t.Helper()
	old, oldR := pinned, pinnedReranker
	t.Cleanup(func() { pinned, pinnedReranker = old, oldR })
	model = fakeDir(t, &pinned, embed.ModelName, "model.onnx", weights)
	reranker = fakeDir(t, &pinnedReranker, embed.RerankerName, "model_int8.onnx", "tuned "+weights)
	return model, reranker
}

// fakeDir writes a model named name, its weights in onnx, into a new dir
// and pins its files in *pins.
func fakeDir(t *testing.T, pins *[]File, name, onnx, weights string) string {
	t.Helper()
	dir := t.TempDir()
	for n, body := range map[string]string{"config.json": "{}", "tokenizer.json": `{"t":1}`, onnx: weights} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := embed.Manifest{Name: name, Dims: embed.Dims, MaxSeqLength: embed.MaxSeqLength, Pooling: "mean", Normalize: true}
	if err := embed.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	*pins = nil
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		sum := sha256.Sum256(b)
		*pins = append(*pins, File{Name: e.Name(), Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
	}
	return dir
}

// filesOf maps "<top>/<name>" to the bytes of each file of the model and
// the reranker, as a tarball of them holds them.
func filesOf(t *testing.T, model, reranker string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for top, dir := range map[string]string{embed.ModelName: model, embed.RerankerName: reranker} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[top+"/"+e.Name()] = string(b)
		}
	}
	return out
}

func tarGz(t *testing.T, entries map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "m.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRevAndNameFollowThePins: a new model or a new reranker is a new rev.
func TestRevAndNameFollowThePins(t *testing.T) {
	usePins(t, "one")
	r1, n1 := Rev(), TarballName()
	usePins(t, "two")
	if Rev() == r1 || TarballName() == n1 || len(Rev()) != 12 {
		t.Errorf("rev %s -> %s, name %s -> %s", r1, Rev(), n1, TarballName())
	}
	if !strings.HasPrefix(n1, "cmdai-model_"+embed.ModelName+"_") || !strings.HasSuffix(n1, "_"+r1+".tar.gz") {
		t.Errorf("name %s", n1)
	}
	r2 := Rev()
	pinnedReranker[0].SHA256 = strings.Repeat("0", 64)
	if Rev() == r2 {
		t.Error("the reranker's pins do not change the rev")
	}
}

// TestWriteTarballUnpacks: WriteTarball's tarball is byte-stable, holds
// the model's files then the reranker's, each in name order, and unpacks
// to the pinned files; unpack refuses what is not pinned.
func TestWriteTarballUnpacks(t *testing.T) {
	dir, rr := usePins(t, "weights")
	p1, err := WriteTarball(context.Background(), dir, rr, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := WriteTarball(context.Background(), dir, rr, t.TempDir())
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) || filepath.Base(p1) != TarballName() {
		t.Errorf("two tarballs differ or are misnamed: %s", p1)
	}
	var want []string
	for _, p := range []struct {
		top   string
		files []File
	}{{embed.ModelName, pinned}, {embed.RerankerName, pinnedReranker}} {
		for _, f := range p.files {
			want = append(want, p.top+"/"+f.Name)
		}
	}
	if got := tarNames(t, b1); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("entries\n%v, want\n%v", got, want)
	}
	got := t.TempDir()
	if err := unpack(p1, got); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(filepath.Join(got, embed.ModelName)); err != nil {
		t.Error(err)
	}
	if err := CheckRerankerDir(filepath.Join(got, embed.RerankerName)); err != nil {
		t.Error(err)
	}

	good := filesOf(t, dir, rr)
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for n, b := range good {
			m[n] = b
		}
		m[k] = v
		return m
	}
	for name, entries := range map[string]map[string]string{
		"extra file":            with(embed.ModelName+"/evil.sh", "x"),
		"extra reranker file":   with(embed.RerankerName+"/model.onnx", "weights"),
		"other top":             with("other-model/config.json", "{}"),
		"file at the top":       with("config.json", "{}"),
		"path escape":           with(embed.ModelName+"/../config.json", "{}"),
		"size differs":          with(embed.ModelName+"/model.onnx", "weights, and more"),
		"reranker size differs": with(embed.RerankerName+"/model_int8.onnx", "tuned"),
	} {
		err := unpack(tarGz(t, entries), t.TempDir())
		if !errors.Is(err, ErrNotPinned) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// same sizes, other bytes: unpack takes it, the check does not
	bad := t.TempDir()
	if err := unpack(tarGz(t, with(embed.RerankerName+"/model_int8.onnx", "tuned weightz")), bad); err != nil {
		t.Fatal(err)
	}
	if err := CheckRerankerDir(filepath.Join(bad, embed.RerankerName)); !errors.Is(err, ErrNotPinned) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("other bytes: %v", err)
	}
	// truncated
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	os.WriteFile(cut, b1[:len(b1)/2], 0o644)
	if err := unpack(cut, t.TempDir()); !errors.Is(err, ErrDamaged) {
		t.Errorf("truncated: %v", err)
	}
	// the model or the reranker in its dir changed: WriteTarball refuses it
	os.WriteFile(filepath.Join(rr, "model_int8.onnx"), []byte("tuned weightz"), 0o644)
	if _, err := WriteTarball(context.Background(), dir, rr, t.TempDir()); !errors.Is(err, ErrNotPinned) || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("changed reranker: %v", err)
	}
	if _, err := WriteTarball(context.Background(), dir, dir, t.TempDir()); !errors.Is(err, ErrNotPinned) {
		t.Errorf("the model as the reranker: %v", err)
	}
}

func tarNames(t *testing.T, b []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if h.Mode != 0o644 || h.Uid != 0 || h.Uname != "" || !h.ModTime.Equal(epoch) {
			t.Errorf("%s: mode %o, owner %d %q, time %v", h.Name, h.Mode, h.Uid, h.Uname, h.ModTime)
		}
		names = append(names, h.Name)
	}
	return names
}

// TestInstallTarballBothOrNeither: a tarball installs the model and the
// reranker; one missing the reranker, with an extra top directory, or a
// damaged file of either is refused and leaves both installed as they were.
func TestInstallTarballBothOrNeither(t *testing.T) {
	dir, rr := usePins(t, "weights")
	p, err := WriteTarball(context.Background(), dir, rr, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dst, rdst := filepath.Join(home, embed.ModelName), filepath.Join(home, embed.RerankerName)
	in, err := InstallTarball(context.Background(), p, dst, rdst)
	if err != nil || in.Model.Name != embed.ModelName || in.Reranker.Name != embed.RerankerName {
		t.Fatalf("%+v %v", in, err)
	}
	if err := CheckDir(dst); err != nil {
		t.Error(err)
	}
	if err := CheckRerankerDir(rdst); err != nil {
		t.Error(err)
	}
	before := filesOf(t, dst, rdst)

	good := filesOf(t, dir, rr)
	without := map[string]string{}
	for n, b := range good {
		if !strings.HasPrefix(n, embed.RerankerName+"/") {
			without[n] = b
		}
	}
	change := func(k, v string) map[string]string {
		m := map[string]string{}
		for n, b := range good {
			m[n] = b
		}
		m[k] = v
		return m
	}
	for name, entries := range map[string]map[string]string{
		"no reranker":      without,
		"extra top dir":    change("more-models/config.json", "{}"),
		"damaged reranker": change(embed.RerankerName+"/model_int8.onnx", "tuned weightz"),
		"damaged model":    change(embed.ModelName+"/model.onnx", "weightz"),
		"reranker manifest": change(embed.RerankerName+"/"+embed.ManifestFile,
			strings.Replace(good[embed.RerankerName+"/"+embed.ManifestFile], `"dims": 384`, `"dims": 385`, 1)),
	} {
		_, err := InstallTarball(context.Background(), tarGz(t, entries), dst, rdst)
		if !errors.Is(err, ErrNotPinned) || !strings.Contains(err.Error(), "nothing was installed") && name != "extra top dir" {
			t.Errorf("%s: %v", name, err)
		}
		if after := filesOf(t, dst, rdst); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the installed model or reranker changed", name)
		}
	}
	// a reranker that cannot be copied (its dir under a file) after both
	// checked: the model is in, and the error says the reranker is not
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o644)
	dst2 := filepath.Join(t.TempDir(), embed.ModelName)
	in, err = InstallTarball(context.Background(), p, dst2, filepath.Join(blocked, embed.RerankerName))
	if err == nil || in.Model.Name != embed.ModelName || in.Reranker.Name != "" || !strings.Contains(err.Error(), "the reranker was not") {
		t.Errorf("reranker not installable: %+v %v", in, err)
	}
	if err := CheckDir(dst2); err != nil {
		t.Error(err)
	}
	// a model that cannot be copied: nothing is reported installed
	in, err = InstallTarball(context.Background(), p, filepath.Join(blocked, embed.ModelName), rdst)
	if err == nil || in.Model.Name != "" {
		t.Errorf("model not installable: %+v %v", in, err)
	}
}
