package pages

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

// TestLookupNamedCommands: Lookup parses the named commands' pages as
// Run does (the same records), leaves out names not on the path, runs
// --help only under HelpFallback, and refuses denied commands.
func TestLookupNamedCommands(t *testing.T) {
	opts := machine(t)
	help := "echo 'Usage: helpy [-q] FILE'\necho 'Make FILE helpful.'\necho\necho '  -q, --quiet   say nothing'\nexit 2\n"
	helpfixture.Write(t, opts.PathDirs[0], "helpy", help)
	write(t, filepath.Join(opts.PathDirs[0], "notexec"), []byte("#!/bin/sh\n"), 0o644)
	ctx := context.Background()

	rs, err := Lookup(ctx, opts, []string{"nosuch", "frob", "bare", "frob", "notexec", "../bin/frob", "helpy"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Command+":"+r.Status)
	}
	if want := []string{"frob:parsed", "bare:no_man_page", "helpy:no_man_page"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("results %q, want %q", got, want)
	}
	// the same records as a build's (aliases aside: Lookup knows only frob)
	all, _ := collect(t, opts)
	var built Result
	for _, r := range all {
		if r.Command == "frob" {
			built = r
		}
	}
	if len(rs[0].Chunks) != len(built.Chunks) || rs[0].Chunks[0].ID != built.Chunks[0].ID || rs[0].Chunks[0].Text != built.Chunks[0].Text {
		t.Errorf("frob's records differ from the build's: %d vs %d", len(rs[0].Chunks), len(built.Chunks))
	}

	opts.HelpFallback = true
	write(t, filepath.Join(opts.PathDirs[0], "reboot"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	rs, err = Lookup(ctx, opts, []string{"helpy", "reboot"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Status != StatusParsed || rs[0].Source != SourceHelp || len(rs[0].Chunks) == 0 {
		t.Errorf("helpy under HelpFallback: %+v", rs)
	}
	if len(rs) == 2 && rs[1].Status != StatusDenied {
		t.Errorf("reboot: %+v, want denied", rs[1])
	}
	if rs, err := Lookup(ctx, opts, []string{"nosuch"}, 0); err != nil || len(rs) != 0 {
		t.Errorf("nothing found: %+v %v", rs, err)
	}
	// max bounds the names found, not the names asked
	if rs, _ := Lookup(ctx, opts, []string{"nosuch", "bare", "frob", "helpy"}, 2); len(rs) != 2 || rs[0].Command != "bare" || rs[1].Command != "frob" {
		t.Errorf("at most 2: %+v", rs)
	}
}
