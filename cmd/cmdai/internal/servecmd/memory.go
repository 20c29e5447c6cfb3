package servecmd

import "runtime/debug"

// releaseMemory hands back to the system the Go heap that is free: serve
// calls it once warm (loading the model and the keyword index leaves
// garbage about the size of what it keeps) and whenever it turns quiet
// after queries (serve.Options.OnQuiet). Otherwise the runtime keeps up
// to its heap goal, about twice the live heap with the default GOGC,
// resident while nobody asks. It costs one full collection, run while
// no request is in.
func releaseMemory() { debug.FreeOSMemory() }
