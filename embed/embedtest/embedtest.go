// Package embedtest gives tests of other packages a model directory that
// passes the install and verify logic without the real model.
package embedtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmdai/cmdai/embed"
)

// FakeModel writes a model directory of small stand-in files with a
// correct manifest: import, status, export and the model checks look
// only at names and hashes. Different contents give different hashes.
func FakeModel(t testing.TB, content string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"model.onnx":     "onnx " + content,
		"tokenizer.json": `{"tok":"` + content + `"}`,
		"config.json":    `{"hidden_size":384}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := embed.Manifest{Name: embed.ModelName, Dims: embed.Dims, MaxSeqLength: embed.MaxSeqLength, Pooling: "mean", Normalize: true, Source: "test:" + content}
	if err := embed.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}
