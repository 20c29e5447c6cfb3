package chroma

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cmdai/cmdai/chroma/launcher"
	"github.com/cmdai/cmdai/internal/procgroup"
	"github.com/cmdai/cmdai/internal/termtext"
)

// CLIVersion is what `chroma --version` prints for the pinned chromadb
// (ChromaVersion): its Rust command line has a version of its own.
const CLIVersion = "1.4.1"

// ErrUnsupportedVersion means the `chroma` found is not a release cmdai
// can talk to (chroma-go speaks the v2 API of chromadb 1.x).
var ErrUnsupportedVersion = errors.New("unsupported chroma version")

// VersionTimeout bounds `chroma --version`: through pip's entry point
// it answers in about 40 ms (the Rust bindings alone), a wrapper that
// imports the whole Python package in a second or two. A variable for
// the tests.
var VersionTimeout = 15 * time.Second

var versionRE = regexp.MustCompile(`\b(\d+)\.(\d+)\.(\d+)\b`)

// BinVersion runs `bin --version`, bounded by VersionTimeout (the whole
// process group is killed when it does not answer), and returns the
// version it prints. An error that is not ErrUnsupportedVersion means
// the version could not be told (the program failed or printed none).
func BinVersion(ctx context.Context, bin string) (string, error) {
	cmd := launcher.Command(bin, "--version")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(cmd.Environ(), "NO_COLOR=1")
	done := make(chan error, 1)
	if err := procgroup.Start(cmd, func(err error) { done <- err }); err != nil {
		return "", fmt.Errorf("run %s --version: %w", bin, err)
	}
	timer := time.NewTimer(VersionTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		text := strings.TrimSpace(termtext.Clean(out.String()))
		if len(text) > 200 {
			text = text[:200] + "..."
		}
		m := versionRE.FindStringSubmatch(text)
		if m == nil {
			return "", fmt.Errorf("%s --version printed no version (%v): %q", bin, err, text)
		}
		if major, _ := strconv.Atoi(m[1]); major != 1 {
			return m[0], fmt.Errorf("%w: %s is chroma %s; cmdai needs chromadb %s (whose `chroma --version` says %s): %s", ErrUnsupportedVersion, bin, m[0], ChromaVersion, CLIVersion, binFix)
		}
		return m[0], nil
	case <-timer.C:
	case <-ctx.Done():
	}
	_ = procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL)
	<-done
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return "", fmt.Errorf("%w: %s --version did not answer within %s: %s", ErrUnsupportedVersion, bin, VersionTimeout, binFix)
}
