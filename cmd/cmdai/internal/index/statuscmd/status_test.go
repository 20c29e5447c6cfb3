package statuscmd

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/stale"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// TestStatusStaleFigures: an index of 30 commands on a machine with 890
// more installed used to print "stale: 890 of 30 commands". The line
// must not put a count over a smaller total.
func TestStatusStaleFigures(t *testing.T) {
	out := &bytes.Buffer{}
	streams := &cmdutil.IOStreams{Out: out, ErrOut: io.Discard}
	st := IndexStatus{Current: "cmdai_linux_debian-12", Collections: []builder.CollectionStatus{{
		Name: "cmdai_linux_debian-12", Records: 400, Current: true,
		Stale: &stale.Staleness{Indexed: 30, Changed: 2, Added: 890, Removed: 1, Stale: 893},
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

// TestScanEnvForServe: the caller's $PATH and $MANPATH go to serve as
// they are; a relative $MANPATH entry or an oversized value keeps the
// status in this process (serve would refuse it or judge it otherwise).
func TestScanEnvForServe(t *testing.T) {
	env := func(path, manpath string) func(string) string {
		return func(k string) string {
			return map[string]string{"PATH": path, "MANPATH": manpath}[k]
		}
	}
	if e, ok := scanEnv(env("/opt/x/bin:/usr/bin", ":/opt/x/man")); !ok || e.Path != "/opt/x/bin:/usr/bin" || e.ManPath != ":/opt/x/man" {
		t.Errorf("plain environment: %+v %v", e, ok)
	}
	if e, ok := scanEnv(env("", "")); !ok || e.Path != "" || e.ManPath != "" {
		t.Errorf("empty environment: %+v %v; want it sent empty", e, ok)
	}
	for _, bad := range [][2]string{{"/bin", "man:/usr/share/man"}, {strings.Repeat("/usr/bin:", 1000), ""}} {
		if _, ok := scanEnv(env(bad[0], bad[1])); ok {
			t.Errorf("PATH %.40q MANPATH %q: sent to serve; want the status worked out here", bad[0], bad[1])
		}
	}
}
