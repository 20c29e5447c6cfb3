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
