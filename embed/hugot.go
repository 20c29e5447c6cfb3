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
	session  *hugot.Session
	pipeline *pipelines.FeatureExtractionPipeline
}

var pipelineSeq atomic.Int64

func newHugotRunner(session *hugot.Session, o Options) (*hugotRunner, error) {
	cfg := hugot.FeatureExtractionConfig{
		ModelPath:    o.Dir,
		Name:         fmt.Sprintf("cmdai-embed-%d", pipelineSeq.Add(1)),
		OnnxFilename: variantFiles[o.Variant],
		Options: []hugot.FeatureExtractionOption{
			pipelines.WithNormalization(),
		},
	}
	p, err := hugot.NewPipeline(session, cfg)
	if err != nil {
		_ = session.Destroy()
		return nil, fmt.Errorf("load model %s: %w", o.Dir, err)
	}
	return &hugotRunner{session: session, pipeline: p}, nil
}

func (h *hugotRunner) run(texts []string) ([][]float32, error) {
	out, err := h.pipeline.RunPipeline(texts)
	if err != nil {
		return nil, err
	}
	return out.Embeddings, nil
}

func (h *hugotRunner) close() error { return h.session.Destroy() }

func newGoRunner(o Options) (runner, error) {
	s, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("start the pure-Go backend: %w", err)
	}
	return newHugotRunner(s, o)
}
