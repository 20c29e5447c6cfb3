package answer

import (
	"strings"
	"testing"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
)

func TestCheckModel(t *testing.T) {
	m := index.Meta{Model: "all-MiniLM-L6-v2", ModelSHA256: "abc", ModelVariant: "int8"}
	if err := CheckModel(m, embed.Info{SHA256: "abc"}); err != nil {
		t.Errorf("same model: %v", err)
	}
	err := CheckModel(m, embed.Info{Model: "all-MiniLM-L6-v2", Variant: "fp32", SHA256: "def"})
	if err == nil || !strings.Contains(err.Error(), "--model-variant int8") {
		t.Errorf("other model: %v", err)
	}
}
