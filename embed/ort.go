//go:build ORT

package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/options"
	"github.com/knights-analytics/hugot/pipelines"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/cmdai/cmdai/embed/libcheck"
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
		return nil, ortNotFound(os.Getenv)
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
		return nil, badORT(dir, err)
	}
	return s, nil
}

// ProbeORT loads ONNX Runtime from dir (FindORTLibDir when "") and
// returns its version, as `cmdai doctor` reports it. It shares the
// process's one ONNX Runtime environment with the embedders: with one
// open, it reads the version of the library already loaded.
func ProbeORT(dir string) (version, loaded string, err error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if dir == "" {
		dir = FindORTLibDir(os.Getenv)
	}
	if shared.session != nil {
		return ort.GetVersion(), dir, nil
	}
	if dir == "" {
		return "", "", ortNotFound(os.Getenv)
	}
	s, err := hugot.NewORTSession(options.WithOnnxLibraryPath(dir))
	if err != nil {
		return "", dir, badORT(dir, err)
	}
	defer s.Destroy()
	return ort.GetVersion(), dir, nil
}

// badORT explains a library that is there but does not load: not a
// shared library, built for another machine, or too old.
func badORT(dir string, err error) error {
	why := libcheck.Problem(filepath.Join(dir, ORTLibName))
	if why == "" {
		why = "it is damaged, built for another machine, or older than 1.23"
	}
	return fmt.Errorf("%w: %s in %s does not load (%v): %s; %s", ErrNoORT, ORTLibName, dir, err, why, ortFix)
}

// Tokenizers says which tokenizer library this binary runs and its
// version: with ONNX Runtime, Hugging Face's Rust tokenizers, linked in
// statically (nothing to find at run time).
func Tokenizers() (name, version string) {
	return "Hugging Face tokenizers (Rust, github.com/daulet/tokenizers), linked statically into this binary", moduleVersion("github.com/daulet/tokenizers")
}
