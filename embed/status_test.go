package embed

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStatus: nothing installed, installed and whole, installed and
// damaged; an asked-for backend is the one reported.
func TestStatus(t *testing.T) {
	noEnv := func(string) string { return "" }
	st, _, err := Status(t.TempDir(), "", noEnv)
	if !errors.Is(err, ErrNoModel) || st.Installed || st.Verified || st.Error == "" {
		t.Errorf("empty dir: %+v, %v", st, err)
	}

	dir := fakeModel(t, "a")
	st, m, err := Status(dir, BackendGo, noEnv)
	if err != nil || !st.Installed || !st.Verified || st.Dir != dir || st.Backend != BackendGo || st.Source != "test:a" {
		t.Errorf("whole model: %+v, %v", st, err)
	}
	if len(st.Variants) != 1 || st.Variants[0] != VariantFP32 || st.SHA256["model.onnx"] != m.ModelSHA256(VariantFP32) {
		t.Errorf("variants %v, sha256 %v", st.Variants, st.SHA256)
	}

	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, err = Status(dir, "", noEnv)
	if !errors.Is(err, ErrCorruptModel) || !st.Installed || st.Verified || st.Error != err.Error() {
		t.Errorf("damaged model: %+v, %v", st, err)
	}
}
