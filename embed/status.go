package embed

import (
	"errors"
	"time"
)

// ModelStatus is the state of an installed model: whether it is there,
// whether every file matches its manifest, and which backend would run
// it. It is what `cmdai model status --json` prints.
type ModelStatus struct {
	Dir          string            `json:"dir"`
	Installed    bool              `json:"installed"`
	Verified     bool              `json:"verified"`
	Error        string            `json:"error,omitempty"`
	Source       string            `json:"source,omitempty"`
	Variants     []string          `json:"variants,omitempty"`
	SHA256       map[string]string `json:"sha256_by_file,omitempty"`
	ORTBuiltIn   bool              `json:"ort_built_in"`
	ORTLibDir    string            `json:"ort_lib_dir,omitempty"`
	Backend      string            `json:"backend"`
	VerifyMillis int64             `json:"verify_ms"`
}

// Status checks the model in dir against its manifest (Verify) and says
// which backend would run it: backend when one is asked for, else ONNX
// Runtime when built in and its library is found, else pure Go. It
// returns the manifest read and Verify's error (ErrNoModel when nothing
// is installed, ErrCorruptModel when a file does not match).
func Status(dir, backend string, getenv func(string) string) (ModelStatus, Manifest, error) {
	st := ModelStatus{Dir: dir, ORTBuiltIn: ORTAvailable(), ORTLibDir: FindORTLibDir(getenv)}
	st.Backend = BackendGo
	if backend != "" {
		st.Backend = backend
	} else if st.ORTBuiltIn && st.ORTLibDir != "" {
		st.Backend = BackendORT
	}
	start := time.Now()
	m, err := Verify(dir, "")
	st.VerifyMillis = time.Since(start).Milliseconds()
	st.Installed = !errors.Is(err, ErrNoModel)
	st.Verified = err == nil
	if err != nil {
		st.Error = err.Error()
	}
	if st.Installed {
		st.Source = m.Source
		st.SHA256 = m.Files
		for _, v := range []string{VariantFP32, VariantInt8} {
			if m.HasVariant(v) {
				st.Variants = append(st.Variants, v)
			}
		}
	}
	return st, m, err
}
