//go:build unix && !linux

package procgroup

import "syscall"

// Elsewhere a child outlives a killed parent; the Chroma server's next
// cmdai finds it through the pid file and stops it before taking the
// data directory.
func setParentDeathSignal(*syscall.SysProcAttr) {}
