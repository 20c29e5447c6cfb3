//go:build ORT && linux

package embed

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>

// trim calls the C library's malloc_trim(0) when it has one (glibc; musl
// does not), found at run time so that the build does not depend on it.
static int trim(void) {
	int (*f)(size_t) = (int (*)(size_t))dlsym(RTLD_DEFAULT, "malloc_trim");
	return f ? f(0) : 0;
}
*/
import "C"

// TrimNativeHeap returns to the system the C heap that is free. Loading
// the model leaves ONNX Runtime's freed load-time buffers in malloc's
// arenas, which glibc keeps resident unless asked (18 MiB of serve's
// idle RSS, BENCHMARKS.md). It locks each arena in turn: call it when
// no embedding runs, as serve does once warm and when it turns quiet.
func TrimNativeHeap() { C.trim() }
