// Package libcheck says what is wrong with a shared library that does
// not load, from its ELF header: the dynamic loader's own words for a
// library of another machine are "No such file or directory".
package libcheck

import (
	"debug/elf"
	"fmt"
	"runtime"
)

// elfMachines are the machines cmdai's builds run on.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// Problem says what is wrong with the shared library at path, where its
// ELF header tells: "" when nothing is seen, or on systems whose
// libraries are not ELF.
func Problem(path string) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	f, err := elf.Open(path)
	if err != nil {
		return "it is not an ELF shared library (" + err.Error() + ")"
	}
	defer f.Close()
	want, ok := elfMachines[runtime.GOARCH]
	if ok && (f.Machine != want || f.Class != elf.ELFCLASS64) {
		return fmt.Sprintf("it is built for another machine (%s, %s), this cmdai runs on %s", f.Machine, f.Class, runtime.GOARCH)
	}
	if f.Type != elf.ET_DYN {
		return fmt.Sprintf("it is not a shared library (ELF type %s)", f.Type)
	}
	return ""
}
