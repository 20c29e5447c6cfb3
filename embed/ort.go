//go:build ORT

package embed

import (
	"fmt"
	"os"
	"runtime"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/options"
)

// ORTAvailable reports whether this binary can use ONNX Runtime (it was
// built with the ORT tag; the library itself is found at run time).
func ORTAvailable() bool { return true }

func newORTRunner(o Options) (runner, error) {
	dir := o.ORTLibDir
	if dir == "" {
		dir = FindORTLibDir(os.Getenv)
	}
	if dir == "" {
		return nil, fmt.Errorf("%w: %s not found (run `make tools`, or set CMDAI_ORT_LIB_DIR to its directory)", ErrNoORT, ORTLibName)
	}
	threads := o.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	s, err := hugot.NewORTSession(
		options.WithOnnxLibraryPath(dir),
		options.WithIntraOpNumThreads(threads),
		options.WithInterOpNumThreads(1),
	)
	if err != nil {
		return nil, fmt.Errorf("%w: start ONNX Runtime from %s: %v", ErrNoORT, dir, err)
	}
	return newHugotRunner(s, o)
}
