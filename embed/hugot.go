package embed

import (
	"fmt"
	"sync/atomic"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
)

// hugotRunner runs hugot's feature-extraction pipeline, which tokenizes,
// runs the model, mean-pools over the attention mask and normalises.
type hugotRunner struct {
	pipeline *pipelines.FeatureExtractionPipeline
	release  func() error // closes the pipeline and, if it was the last, its session
}

var pipelineSeq atomic.Int64

// newPipeline loads the model variant o asks for into session.
func newPipeline(session *hugot.Session, o Options) (*pipelines.FeatureExtractionPipeline, string, error) {
	name := fmt.Sprintf("cmdai-embed-%d", pipelineSeq.Add(1))
	cfg := hugot.FeatureExtractionConfig{
		ModelPath:    o.Dir,
		Name:         name,
		OnnxFilename: variantFiles[o.Variant],
		Options: []hugot.FeatureExtractionOption{
			pipelines.WithNormalization(),
		},
	}
	p, err := hugot.NewPipeline(session, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("load model %s (%s): %w", o.Dir, variantFiles[o.Variant], err)
	}
	return p, name, nil
}

func (h *hugotRunner) run(texts []string) ([][]float32, error) {
	out, err := h.pipeline.RunPipeline(texts)
	if err != nil {
		return nil, err
	}
	return out.Embeddings, nil
}

func (h *hugotRunner) close() error { return h.release() }

// newGoRunner starts hugot's pure-Go backend. Go sessions are independent,
// so each embedder gets its own.
func newGoRunner(o Options) (runner, error) {
	s, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("start the pure-Go backend: %w", err)
	}
	p, _, err := newPipeline(s, o)
	if err != nil {
		_ = s.Destroy()
		return nil, err
	}
	return &hugotRunner{pipeline: p, release: s.Destroy}, nil
}
