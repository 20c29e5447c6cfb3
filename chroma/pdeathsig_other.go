//go:build unix && !linux

package chroma

import "syscall"

// Elsewhere a server outlives a killed cmdai; the next cmdai finds it
// through the pid file and stops it before taking the data directory.
func setParentDeathSignal(*syscall.SysProcAttr) {}
