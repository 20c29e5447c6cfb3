// Package buildid names the build of the running program: the Go
// linker's build ID (a hash of everything the binary was built from),
// read from its own executable, else a SHA-256 of that file. Two
// processes of one build agree; any change to the code, its
// dependencies or the embedded ranking models changes it.
package buildid

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"sync"

	"github.com/cmdai/cmdai/internal/filehash"
)

var self = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	id, err := Of(exe)
	if err != nil {
		return "unknown"
	}
	return id
})

// Self is the running program's build (read once): "unknown" when its
// executable cannot be read.
func Self() string { return self() }

// Of is the build of the executable at path: its Go build ID from the
// ELF note the linker writes, else "sha256:" and the file's hash.
func Of(path string) (string, error) {
	if id, err := elfBuildID(path); err == nil {
		return id, nil
	}
	sum, _, err := filehash.SHA256(path)
	if err != nil {
		return "", err
	}
	return "sha256:" + sum, nil
}

// elfBuildID reads the note .note.go.buildid: namesz, descsz and type
// (4 bytes each), the name "Go\x00\x00", then the ID.
func elfBuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return "", errors.New("no Go build ID note")
	}
	b, err := s.Data()
	if err != nil {
		return "", err
	}
	if len(b) < 16 || !bytes.Equal(b[12:16], []byte("Go\x00\x00")) {
		return "", errors.New("not a Go build ID note")
	}
	n := f.ByteOrder.Uint32(b[4:8])
	if uint64(len(b)) < 16+uint64(n) || n == 0 {
		return "", errors.New("a cut Go build ID note")
	}
	return string(b[16 : 16+n]), nil
}
