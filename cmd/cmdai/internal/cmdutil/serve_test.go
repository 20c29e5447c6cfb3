package cmdutil

import (
	"errors"
	"testing"

	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// serve's error answers keep the message and exit code the command would
// have had (an unknown command stays search.ErrUnknownCommand); a broken
// conversation with serve is exit 4.
func TestServeError(t *testing.T) {
	err := ServeError(&serve.Error{Status: 404, Message: "no index x: build it with `cmdai index init`", ExitCode: ExitNoIndex})
	if ExitCode(err) != ExitNoIndex || err.Error() != "no index x: build it with `cmdai index init`" {
		t.Errorf("error answer: %v (exit %d)", err, ExitCode(err))
	}
	if errors.Is(err, search.ErrUnknownCommand) {
		t.Errorf("no index is not an unknown command: %v", err)
	}
	err = ServeError(&serve.Error{Status: 404, Message: `unknown command "frob": it is not in the index`, ExitCode: ExitUsage})
	if !errors.Is(err, search.ErrUnknownCommand) || ExitCode(err) != ExitUsage || err.Error() != `unknown command "frob": it is not in the index` {
		t.Errorf("unknown command: %v (exit %d); want search.ErrUnknownCommand, exit 2, serve's message", err, ExitCode(err))
	}
	if err := ServeError(errors.New("EOF")); ExitCode(err) != ExitUnreachable {
		t.Errorf("a lost connection: %v (exit %d); want 4", err, ExitCode(err))
	}
}
