//go:build ORT

package embed

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/options"
	"github.com/knights-analytics/hugot/pipelines"
)

// ORTAvailable reports whether this binary can use ONNX Runtime (it was
// built with the ORT tag; the library itself is found at run time).
func ORTAvailable() bool { return true }

// ONNX Runtime allows one environment per process, so hugot allows one ORT
// session at a time. Embedders share it: each adds its own pipeline, and
// the session is destroyed when the last one closes. The first embedder's
// library directory and thread count stand for all of them.
var shared struct {
	mu      sync.Mutex
	session *hugot.Session
	users   int
}

func newORTRunner(o Options) (runner, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.session == nil {
		s, err := startORT(o)
		if err != nil {
			return nil, err
		}
		shared.session = s
	}
	p, name, err := newPipeline(shared.session, o)
	if err != nil {
		if shared.users == 0 {
			_ = shared.session.Destroy()
			shared.session = nil
		}
		return nil, err
	}
	shared.users++
	return &hugotRunner{pipeline: p, release: func() error { return releaseORT(name) }}, nil
}

func releaseORT(name string) error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.session == nil {
		return nil
	}
	err := hugot.ClosePipeline[*pipelines.FeatureExtractionPipeline](shared.session, name)
	shared.users--
	if shared.users <= 0 {
		if derr := shared.session.Destroy(); err == nil {
			err = derr
		}
		shared.session, shared.users = nil, 0
	}
	return err
}

func startORT(o Options) (*hugot.Session, error) {
	dir := o.ORTLibDir
	if dir == "" {
		dir = FindORTLibDir(os.Getenv)
	}
	if dir == "" {
		return nil, fmt.Errorf("%w: %s not found (run `make tools`, or set CMDAI_ORT_LIB_DIR to its directory)", ErrNoORT, ORTLibName)
	}
	threads := o.Threads
	if threads <= 0 {
		// One intra-op thread per CPU measured fastest here (BENCHMARKS.md).
		threads = runtime.NumCPU()
	}
	s, err := hugot.NewORTSession(
		options.WithOnnxLibraryPath(dir),
		options.WithIntraOpNumThreads(threads),
		options.WithInterOpNumThreads(1),
	)
	if err != nil {
		return nil, fmt.Errorf("%w: start ONNX Runtime from %s: %v (run `make tools`, or set CMDAI_ORT_LIB_DIR to the directory of a working %s, version 1.23 or newer)", ErrNoORT, dir, err, ORTLibName)
	}
	return s, nil
}
