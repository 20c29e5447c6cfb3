//go:build !(ORT && linux)

package embed

// TrimNativeHeap has nothing to do here: without ONNX Runtime there is
// no C heap of the model's, and elsewhere than Linux no malloc_trim.
func TrimNativeHeap() {}
