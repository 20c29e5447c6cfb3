package livedoc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// machine is a made-up PATH and man tree: frob has our fixture page,
// helpy would print --help output, reboot is on helprun's deny list,
// bare has neither page nor help. Each leaves the marker if it is run:
// livedoc must never run one.
func machine(t *testing.T) (Options, string) {
	t.Helper()
	root := t.TempDir()
	bin, man := filepath.Join(root, "bin"), filepath.Join(root, "man")
	marker := filepath.Join(root, "ran")
	for _, d := range []string{bin, filepath.Join(man, "man1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scripts := map[string]string{
		"frob":   "#!/bin/sh\ntouch " + marker + "\nexit 0\n",
		"helpy":  "#!/bin/sh\ntouch " + marker + "\necho 'Usage: helpy [-q] FILE'\necho 'Make FILE helpful.'\necho\necho '  -q, --quiet   say nothing at all'\nexit 2\n",
		"reboot": "#!/bin/sh\ntouch " + marker + "\n",
		"bare":   "#!/bin/sh\ntouch " + marker + "\nexit 1\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile("../../manparse/testdata/frob.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(man, "man1", "frob.1"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		return map[string]string{"PATH": bin, "MANPATH": man}[k]
	}
	return FromEnv(getenv), marker
}

// TestDocFromTheManPageOnly: a command's doc comes from its man page;
// one without (helpy, whose --help would answer) is refused with what the
// user runs to index its --help, and nothing is run, even when the
// caller's options ask for --help.
func TestDocFromTheManPageOnly(t *testing.T) {
	o, marker := machine(t)
	ctx := context.Background()
	doc, where, err := Doc(ctx, o, "frob")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Command != "frob" || doc.Description != "twiddle the bits of files in place" || !strings.HasSuffix(where, filepath.Join("man1", "frob.1")) {
		t.Errorf("frob: %+v from %q", doc.CommandHit, where)
	}
	// the records a build writes, in Docs' order: summary first, then options
	if len(doc.Records) < 3 || doc.Records[0].Kind != "summary" || !hasOption(doc, "--recursive") {
		t.Errorf("frob's records: %+v", doc.Records)
	}
	o.Pages.HelpFallback = true // ignored: livedoc never runs a program
	o.Pages.HelpCommands = map[string]bool{"helpy": true}
	_, _, err = Doc(ctx, o, "helpy")
	if !errors.Is(err, search.ErrUnknownCommand) || !errors.Is(err, ErrNoManPage) ||
		!strings.Contains(err.Error(), "no man page installed") || !strings.Contains(err.Error(), "cmdai index init --command helpy --help-fallback") {
		t.Errorf("helpy: %v, want no man page and how to index its --help", err)
	}
	for _, name := range []string{"nosuch", "bare", "reboot", "../bin/frob"} {
		if _, _, err := Doc(ctx, o, name); !errors.Is(err, search.ErrUnknownCommand) {
			t.Errorf("%s: %v, want ErrUnknownCommand", name, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command was run to answer a docs request")
	}
	if _, _, err := Doc(ctx, o, " "); err == nil || errors.Is(err, search.ErrUnknownCommand) {
		t.Errorf("empty name: %v", err)
	}
}

func hasOption(doc search.CommandDoc, opt string) bool {
	for _, r := range doc.Records {
		if r.Option == opt {
			return true
		}
	}
	return false
}

func TestAnswerFromTheNamedCommands(t *testing.T) {
	o, marker := machine(t)
	ctx := context.Background()
	a, where, ok, err := Answer(ctx, o, search.Request{Query: "how do I use frob to descend into directories recursively", K: 5, Mode: search.ModeSemantic})
	if err != nil || !ok || len(a.Commands) != 1 || a.Commands[0].Command != "frob" || len(where) != 1 {
		t.Fatalf("frob: ok %v %v %+v %q", ok, err, a, where)
	}
	if m := a.Commands[0].Matches; len(m) == 0 || len(m) > shown.DefaultMatches || m[0].Option != "--recursive" {
		t.Errorf("frob's best matches: %+v, want --recursive first", m)
	}
	// helpy has no man page: frob answers alone, nothing is run
	o.Pages.HelpFallback = true // ignored: livedoc never runs a program
	a, where, ok, err = Answer(ctx, o, search.Request{Query: "frob or helpy: descend recursively", K: 5})
	if err != nil || !ok || len(a.Commands) != 1 || a.Commands[0].Command != "frob" || len(where) != 1 {
		t.Errorf("frob and helpy: ok %v %v %+v %q", ok, err, a, where)
	}
	if q := "twiddle the bits of a file"; true {
		if a, _, ok, err := Answer(ctx, o, search.Request{Query: q}); ok || err != nil || len(a.Commands) != 0 {
			t.Errorf("%q: ok %v %v %+v; want no answer", q, ok, err, a)
		}
	}
	// only commands without a man page named: no answer, and why
	for _, q := range []string{"helpy: say nothing, quiet", "bare it all", "reboot the machine"} {
		a, _, ok, err := Answer(ctx, o, search.Request{Query: q})
		if ok || !errors.Is(err, ErrNoManPage) || !strings.Contains(err.Error(), "--help-fallback") || len(a.Commands) != 0 {
			t.Errorf("%q: ok %v %v %+v; want no answer and ErrNoManPage", q, ok, err, a)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command was run to answer a request")
	}
}
