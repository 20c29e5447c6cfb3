package modelcmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/embed"
)

// TestStatusWithoutModel: no model installed is a failure (exit 1), not
// "no index yet" (exit 3), and the text says so.
func TestStatusWithoutModel(t *testing.T) {
	out := &bytes.Buffer{}
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: out, ErrOut: io.Discard}, Getenv: func(string) string { return "" }}
	dir := t.TempDir()
	err := runStatus(context.Background(), &StatusOptions{Factory: f, Model: cmdutil.ModelOptions{Dir: dir, Backend: embed.BackendGo}})
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitFailure || !errors.Is(err, embed.ErrNoModel) {
		t.Errorf("exit %d, err %v; want %d and ErrNoModel", code, err, cmdutil.ExitFailure)
	}
	for _, want := range []string{"directory: " + dir, "installed: no", "backend:   go"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
