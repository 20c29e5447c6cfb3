//go:build !unix

package datalock

import (
	"errors"
	"os"
)

// The private server needs Unix process control; elsewhere run Chroma
// yourself and pass --chroma-url.
var errWouldBlock = errors.New("would block")

var errNoEmbedded = errors.New("the private chroma server is only supported on Linux and macOS here: start `chroma run` yourself and pass --chroma-url")

func tryLock(*os.File) error   { return errNoEmbedded }
func looksLikeChroma(int) bool { return false }
func commandLine(int) string   { return "" }
