package config

import (
	"os"
	"path/filepath"
)

// Install is where the parts that ship with cmdai are, by the run-time
// layout `make install` and the release archives share, found from the
// binary's real path (a symlink to it, in ~/bin say, is followed):
//
//	PREFIX/bin/cmdai
//	PREFIX/lib/cmdai/libonnxruntime.so       ONNX Runtime
//	PREFIX/lib/cmdai/chroma/bin/chroma       the pinned Chroma server
//	PREFIX/share/cmdai/models/<model>/       the model
//
// and, for a binary built in a checkout (bin/cmdai), the checkout's
// .tools, where `make` puts the same parts.
type Install struct {
	Bin   string // the binary's real path; "" when it cannot be told
	Lib   string // PREFIX/lib/cmdai
	Share string // PREFIX/share/cmdai
	Tools string // <checkout>/.tools
}

// InstallOf is the layout around the binary at exe.
func InstallOf(exe string) Install {
	if exe == "" {
		return Install{}
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	prefix := filepath.Dir(filepath.Dir(exe))
	return Install{
		Bin:   exe,
		Lib:   filepath.Join(prefix, "lib", appDir),
		Share: filepath.Join(prefix, "share", appDir),
		Tools: filepath.Join(prefix, ".tools"),
	}
}

// ThisInstall is the layout around the running binary.
func ThisInstall() Install {
	exe, err := os.Executable()
	if err != nil {
		return Install{}
	}
	return InstallOf(exe)
}

// ModelDir is where the named model ships ("" when the binary is unknown).
func (i Install) ModelDir(model string) string {
	if i.Share == "" {
		return ""
	}
	return filepath.Join(i.Share, "models", model)
}

// ChromaBin is where the pinned Chroma server ships ("": binary unknown).
func (i Install) ChromaBin() string {
	if i.Lib == "" {
		return ""
	}
	return filepath.Join(i.Lib, "chroma", "bin", "chroma")
}
