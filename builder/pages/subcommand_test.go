package pages

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// subMachine is machine with a frob that has subcommands: frob-push's
// page shows "frob push", frob-helper's is a program of its own, and
// frob-alias's page is a link to frob's own.
func subMachine(t *testing.T) Options {
	t.Helper()
	opts := machine(t)
	man := opts.ManPath[0]
	page := func(name, synopsis, options string) {
		src := ".TH " + name + " 1\n.SH NAME\n" + name + " \\- " + name + " fixture\n.SH SYNOPSIS\n.nf\n" + synopsis +
			"\n.fi\n.SH DESCRIPTION\nDoes " + name + " things.\n.SH OPTIONS\n" + options
		write(t, filepath.Join(man, "man1", name+".1.gz"), gz(t, []byte(src)), 0o644)
	}
	page("frob-push", "frob push [--force] <remote>", ".TP\n.B \\-\\-force\nPush even when it loses work.\n")
	page("frob-helper", "frob-helper [--quiet]", ".TP\n.B \\-\\-quiet\nSay nothing.\n")
	write(t, filepath.Join(man, "man1", "frob-alias.1.gz"), gz(t, []byte(".so man1/frob.1\n")), 0o644)
	return opts
}

func TestRunIndexesSubcommandPages(t *testing.T) {
	opts := subMachine(t)
	rs, st := collect(t, opts)
	byName := map[string]Result{}
	var order []string
	for _, r := range rs {
		byName[r.Command] = r
		order = append(order, r.Command)
	}
	push := byName["frob-push"]
	if push.Status != StatusParsed || push.Parent != "frob" || push.Path != byName["frob"].Path || len(push.Chunks) == 0 {
		t.Fatalf("frob-push = %+v", push)
	}
	for _, c := range push.Chunks {
		if c.Metadata.Parent != "frob" || c.Metadata.Command != "frob-push" {
			t.Errorf("record %s: command %q parent %q", c.ID, c.Metadata.Command, c.Metadata.Parent)
		}
	}
	if opt := push.Chunks[len(push.Chunks)-1]; opt.Metadata.Option == "" {
		t.Errorf("frob-push's option record is missing: %+v", push.Chunks)
	}
	helper := byName["frob-helper"]
	if helper.Status != StatusNotSubcommand || len(helper.Chunks) != 0 || helper.Fingerprint == "" {
		t.Errorf("frob-helper = %+v, want not_subcommand with a fingerprint and no records", helper)
	}
	// a link to frob's own page documents frob: reported, not read
	if a := byName["frob-alias"]; a.Status != StatusNotSubcommand || len(a.Chunks) != 0 || a.Fingerprint == "" {
		t.Errorf("frob-alias = %+v, want not_subcommand with a fingerprint", a)
	}
	if byName["frob"].Parent != "" {
		t.Error("frob has a parent")
	}
	// $PATH's commands are counted as before; the subcommand pages apart
	if st.CommandsSeen != 6 || st.Parsed != 1 || st.Subcommands != 1 || st.NotSubcommands != 2 {
		t.Errorf("stats = %+v", st)
	}
	want := []string{"bare", "broken", "frob", "frobcopy", "refrob", "unfrob", "frob-alias", "frob-helper", "frob-push"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("order = %q, want %q", order, want)
	}

	// asking for frob brings its subcommands; frob-push can be asked alone
	opts.Commands = []string{"frob"}
	rs, _ = collect(t, opts)
	if got := names(rs); !reflect.DeepEqual(got, []string{"frob", "frobcopy", "refrob", "unfrob", "frob-alias", "frob-helper", "frob-push"}) {
		t.Errorf("--command frob: %q", got)
	}
	opts.Commands = []string{"frob-push"}
	rs, _ = collect(t, opts)
	if got := names(rs); !reflect.DeepEqual(got, []string{"frob-push"}) {
		t.Errorf("--command frob-push: %q", got)
	}
	if err := CheckCommands(context.Background(), opts); err != nil {
		t.Errorf("CheckCommands(frob-push): %v", err)
	}
	// a typo of a subcommand is refused before a build starts: its parent
	// is on PATH, but no page of that name is installed
	for _, bad := range []string{"nosuch-push", "frob-psuh"} {
		opts.Commands = []string{"frob", bad}
		if err := CheckCommands(context.Background(), opts); !errors.Is(err, ErrUnknownCommand) || !strings.Contains(err.Error(), bad+" (") {
			t.Errorf("CheckCommands(%s): %v", bad, err)
		}
	}
}

func TestScanInstalledListsSubcommandPages(t *testing.T) {
	opts := subMachine(t)
	got, err := ScanInstalled(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	fp := map[string]string{}
	for _, c := range got {
		fp[c.Command] = c.Fingerprint
	}
	// both candidates: the build remembers frob-helper as skipped
	for _, n := range []string{"frob", "frob-push", "frob-helper"} {
		if fp[n] == "" {
			t.Errorf("%s missing from %v", n, fp)
		}
	}
	rs, _ := collect(t, opts)
	for _, r := range rs {
		if (r.Command == "frob-push" || r.Command == "frob-helper") && r.Fingerprint != fp[r.Command] {
			t.Errorf("%s: build fingerprint %s, scan %s", r.Command, r.Fingerprint, fp[r.Command])
		}
	}
}

func names(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Command)
	}
	return out
}
