package cmdutil

import (
	"errors"
	"testing"

	"github.com/cmdai/cmdai/serve"
)

// serve's error answers keep the message and exit code the command would
// have had; a broken conversation with serve is exit 4.
func TestServeError(t *testing.T) {
	err := ServeError(&serve.Error{Status: 404, Message: "no index x: build it with `cmdai index init`", ExitCode: ExitNoIndex})
	if ExitCode(err) != ExitNoIndex || err.Error() != "no index x: build it with `cmdai index init`" {
		t.Errorf("error answer: %v (exit %d)", err, ExitCode(err))
	}
	if err := ServeError(errors.New("EOF")); ExitCode(err) != ExitUnreachable {
		t.Errorf("a lost connection: %v (exit %d); want 4", err, ExitCode(err))
	}
}
