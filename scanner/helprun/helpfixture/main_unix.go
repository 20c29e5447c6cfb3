//go:build unix

package helpfixture

import (
	"fmt"
	"os"
	"syscall"
)

// Main makes this test binary act as a fixture when it was started as
// one (a script beside the file it was started from): it runs the script
// with /bin/sh in its place, with its arguments, and never returns.
// Otherwise it returns at once. Call it first in TestMain.
func Main() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	script := scriptOf(exe)
	if _, err := os.Stat(script); err != nil {
		return
	}
	err = syscall.Exec("/bin/sh", append([]string{"sh", script}, os.Args[1:]...), os.Environ())
	fmt.Fprintf(os.Stderr, "helpfixture: run %s: %v\n", script, err)
	os.Exit(127)
}
