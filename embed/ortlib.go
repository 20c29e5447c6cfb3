package embed

import (
	"os"
	"path/filepath"
	"runtime"
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

// FindORTLibDir returns the first directory holding ORTLibName:
// $CMDAI_ORT_LIB_DIR, $CMDAI_TOOLS/lib, the .tools/lib of the checkout a
// cmdai binary was built in (bin/cmdai -> .tools/lib), then the system's
// library directories. "" means none was found.
func FindORTLibDir(getenv func(string) string) string {
	var dirs []string
	if d := getenv("CMDAI_ORT_LIB_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if t := getenv("CMDAI_TOOLS"); t != "" {
		dirs = append(dirs, filepath.Join(t, "lib"))
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "..", ".tools", "lib"))
	}
	dirs = append(dirs, "/usr/local/lib", "/usr/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/opt/homebrew/lib")
	for _, d := range dirs {
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
