package inspectcmd

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/build"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// TestStatusStaleFigures: an index of 30 commands on a machine with 890
// more installed used to print "stale: 890 of 30 commands". The line
// must not put a count over a smaller total.
func TestStatusStaleFigures(t *testing.T) {
	out := &bytes.Buffer{}
	streams := &cmdutil.IOStreams{Out: out, ErrOut: io.Discard}
	st := IndexStatus{Current: "cmdai_linux_debian-12", Collections: []build.CollectionStatus{{
		Name: "cmdai_linux_debian-12", Records: 400, Current: true,
		Stale: &build.Staleness{Indexed: 30, Changed: 2, Added: 890, Removed: 1, Stale: 893},
	}}}
	printStatus(&StatusOptions{Factory: &cmdutil.Factory{IO: streams}}, st)
	got := out.String()
	for _, bad := range []string{"893 of 30", "890 of 30", " of 30 commands"} {
		if strings.Contains(got, bad) {
			t.Errorf("status says %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{"30 commands indexed", "2 changed", "1 removed", "890 installed commands not in the index", "cmdai index refresh"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}
}
