package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/cmdai/cmdai/config"
)

// ORTLibName is ONNX Runtime's shared library here: the name hugot loads
// from the directory it is given.
var ORTLibName = ortLibName(runtime.GOOS)

func ortLibName(goos string) string {
	switch goos {
	case "darwin":
		return "libonnxruntime.dylib"
	case "windows":
		return "onnxruntime.dll"
	}
	return "libonnxruntime.so"
}

// ortFix says how to get a working ONNX Runtime library.
const ortFix = "install cmdai with `make install` from a checkout (or unpack a release archive, which has it in lib/cmdai/), set " + EnvORTLibDir + " to the directory of a working one, version 1.23 or newer, or pass --embed-backend go (slow, fp32 only); `cmdai doctor` checks every part"

// ortNotFound says that no ONNX Runtime library was found, and where
// the setting that was obeyed pointed.
func ortNotFound(getenv func(string) string) error {
	if d := getenv(EnvORTLibDir); d != "" {
		return fmt.Errorf("%w: %s=%s holds no %s: point it at the directory that does, or unset it; %s", ErrNoORT, EnvORTLibDir, d, ORTLibName, ortFix)
	}
	return fmt.Errorf("%w: %s not found: %s", ErrNoORT, ORTLibName, ortFix)
}

// EnvORTLibDir names the directory of ONNX Runtime's library.
const EnvORTLibDir = "CMDAI_ORT_LIB_DIR"

// FindORTLibDir returns the first directory holding ORTLibName (see
// ORTLibDirs for the order), for the running binary. "" means none was
// found.
func FindORTLibDir(getenv func(string) string) string {
	return FindORTLibDirFor(getenv, config.ThisInstall())
}

// FindORTLibDirFor is FindORTLibDir for the binary of inst.
func FindORTLibDirFor(getenv func(string) string, inst config.Install) string {
	for _, d := range ORTLibDirs(getenv, inst) {
		if fi, err := os.Stat(filepath.Join(d, ORTLibName)); err == nil && !fi.IsDir() {
			abs, err := filepath.Abs(d)
			if err != nil {
				return d
			}
			return abs
		}
	}
	return ""
}

// ORTLibDirs are the places ONNX Runtime is looked for, in order:
// $CMDAI_ORT_LIB_DIR alone when it is set (a setting is obeyed, not
// passed over), else $CMDAI_TOOLS/lib, PREFIX/lib/cmdai beside the
// binary (bin/cmdai), the .tools/lib of the checkout it was built in,
// then the system's library directories.
func ORTLibDirs(getenv func(string) string, inst config.Install) []string {
	if d := getenv(EnvORTLibDir); d != "" {
		return []string{d}
	}
	var dirs []string
	if t := getenv("CMDAI_TOOLS"); t != "" {
		dirs = append(dirs, filepath.Join(t, "lib"))
	}
	if inst.Bin != "" {
		dirs = append(dirs, inst.Lib, filepath.Join(inst.Tools, "lib"))
	}
	return append(dirs, "/usr/local/lib", "/usr/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/opt/homebrew/lib")
}
