package doctorcmd

import (
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// The exit code is the first failing part's; warnings never fail.
func TestExitFor(t *testing.T) {
	ort := Component{Name: "onnxruntime", Status: StatusBad, code: cmdutil.ExitVerification}
	chroma := Component{Name: "chroma", Status: StatusMissing, code: cmdutil.ExitUnreachable}
	noIndex := Component{Name: "index", Status: StatusWarning, code: cmdutil.ExitNoIndex}
	badIndex := Component{Name: "index", Status: StatusBad, code: cmdutil.ExitNoIndex}
	held := Component{Name: "data-lock", Status: StatusWarning}
	ok := Component{Name: "model", Status: StatusOK, code: cmdutil.ExitVerification}
	for _, c := range []struct {
		comps []Component
		want  int
	}{
		{[]Component{ort, ok, chroma, badIndex}, cmdutil.ExitVerification},
		{[]Component{ok, chroma, badIndex}, cmdutil.ExitUnreachable},
		{[]Component{ok, badIndex, held}, cmdutil.ExitNoIndex},
		{[]Component{ok, noIndex, held}, cmdutil.ExitOK},
	} {
		if got := cmdutil.ExitCode(exitFor(Report{Components: c.comps})); got != c.want {
			t.Errorf("%+v: exit %d; want %d", c.comps, got, c.want)
		}
	}
}
