package servecmd

import (
	"runtime/debug"

	"github.com/cmdai/cmdai/embed"
)

// releaseMemory hands back to the system the Go heap that is free, and the
// C heap that ONNX Runtime freed (embed.TrimNativeHeap): serve
// calls it once warm (loading the model and the keyword index leaves
// garbage about the size of what it keeps) and whenever it turns quiet
// after queries (serve.Options.OnQuiet). Otherwise the runtime keeps up
// to its heap goal, about twice the live heap with the default GOGC,
// resident while nobody asks. It costs one full collection and a pass
// over malloc's arenas, run while no request is in.
func releaseMemory() {
	debug.FreeOSMemory()
	embed.TrimNativeHeap()
}
