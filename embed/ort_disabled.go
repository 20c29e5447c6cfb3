//go:build !ORT

package embed

import "fmt"

// Without the ORT build tag the binary has no ONNX Runtime backend: it was
// built without the tokenizers library the backend links (`make build`
// adds the tag when `make tools` has built it).
func newORTRunner(Options) (runner, error) {
	return nil, fmt.Errorf("%w: this cmdai was built without it (build with `make tools build`)", ErrNoORT)
}

// ORTAvailable reports whether this binary can use ONNX Runtime.
func ORTAvailable() bool { return false }

// ProbeORT reports that this binary has no ONNX Runtime backend.
func ProbeORT(string) (version, loaded string, err error) {
	return "", "", fmt.Errorf("%w: this cmdai was built without it (build with `make tools build`)", ErrNoORT)
}

// Tokenizers says which tokenizer library this binary runs: without
// ONNX Runtime, hugot's pure-Go one.
func Tokenizers() (name, version string) {
	return "pure Go (github.com/sugarme/tokenizer, hugot's Go backend)", moduleVersion("github.com/sugarme/tokenizer")
}
