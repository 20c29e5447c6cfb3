package statuscmd

import (
	"testing"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// TestStatusAnswerer: a running serve tells the status unless
// --no-serve, another Chroma, the scan seams or an environment serve
// would refuse keep it here; serve is asked only for --distro's index,
// and this process scans where the seams say.
func TestStatusAnswerer(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  StatusOptions
		envOK bool
		local bool
	}{
		{"default", StatusOptions{}, true, false},
		{"--no-serve", StatusOptions{NoServe: true}, true, true},
		{"--chroma-url", StatusOptions{Chroma: cmdutil.ChromaOptions{URL: "http://127.0.0.1:1"}}, true, true},
		{"--chroma-data", StatusOptions{Chroma: cmdutil.ChromaOptions{DataDir: "/tmp/x"}}, true, true},
		{"PathDirs", StatusOptions{PathDirs: []string{"/bin"}}, true, true},
		{"ManPath", StatusOptions{ManPath: []string{"/man"}}, true, true},
		{"relative MANPATH", StatusOptions{}, false, true},
		{"--verify (every record, here)", StatusOptions{Verify: true}, true, true},
	} {
		opts := c.opts
		opts.Factory, opts.Distro = &cmdutil.Factory{}, "debian-12"
		a := opts.answerer(c.envOK)
		if (a.Serve == nil) != c.local || a.Distro != "debian-12" {
			t.Errorf("%s: %#v; want serve ruled out %v, Distro debian-12", c.name, a, c.local)
			continue
		}
		here, ok := a.Local.(answer.Degrade).Inner.(*answer.OneShot)
		if !ok || here.Distro != "debian-12" || len(here.PathDirs) != len(opts.PathDirs) || len(here.ManPath) != len(opts.ManPath) {
			t.Errorf("%s: here is %#v", c.name, a.Local)
		}
	}
}
