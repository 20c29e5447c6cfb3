package scanner

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestSubcommands(t *testing.T) {
	root := t.TempDir()
	page := func(rel string) { writePage(t, filepath.Join(root, rel), ".TH X 1\n") }
	for _, rel := range []string{
		"man1/git.1.gz", "man1/git-commit.1.gz", "man1/git-merge-file.1.gz",
		"man1/git-upload-pack.1.gz",           // a command on PATH itself
		"man5/git-config-file.5.gz",           // a file format, not a command
		"man1/gpg.1", "man1/gpg-wks-client.1", // a candidate: the SYNOPSIS decides
		"man8/systemd.8", "man8/systemd-journald.service.8", // a unit
		"man1/nopage-sub.1",                                        // parent on PATH without a page of its own
		"man1/ghost-thing.1",                                       // no parent on PATH
		"man1/systemd-tmpfiles.1", "man1/systemd-tmpfiles-clean.1", // longest parent
		"man1/openssl.1ssl", "man1/openssl-req.1ssl",
		"man8/ip.8", "man8/ip-route.8",
	} {
		page(rel)
	}
	ix, _ := buildIndex(t, []string{root}, IndexOptions{})
	cmds := []Command{
		{Name: "git", Path: "/usr/bin/git"}, {Name: "git-upload-pack", Path: "/usr/bin/git-upload-pack"},
		{Name: "gpg", Path: "/usr/bin/gpg"}, {Name: "systemd", Path: "/bin/systemd"},
		{Name: "systemd-tmpfiles", Path: "/bin/systemd-tmpfiles"}, {Name: "nopage", Path: "/bin/nopage"},
		{Name: "openssl", Path: "/usr/bin/openssl"}, {Name: "ip", Path: "/sbin/ip"},
	}
	Attach(cmds, ix)
	got := map[string][2]string{}
	var names []string
	for _, c := range Subcommands(cmds, ix) {
		if c.Man == nil {
			t.Fatalf("%s has no page", c.Name)
		}
		got[c.Name] = [2]string{c.Parent, c.Path}
		names = append(names, c.Name)
	}
	want := map[string][2]string{
		"git-commit":             {"git", "/usr/bin/git"},
		"git-merge-file":         {"git", "/usr/bin/git"},
		"gpg-wks-client":         {"gpg", "/usr/bin/gpg"},
		"systemd-tmpfiles-clean": {"systemd-tmpfiles", "/bin/systemd-tmpfiles"},
		"openssl-req":            {"openssl", "/usr/bin/openssl"},
		"ip-route":               {"ip", "/sbin/ip"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Subcommands = %v\nwant %v", got, want)
	}
	wantOrder := []string{"git-commit", "git-merge-file", "gpg-wks-client", "ip-route", "openssl-req", "systemd-tmpfiles-clean"}
	if !reflect.DeepEqual(names, wantOrder) {
		t.Errorf("order = %v, want %v", names, wantOrder)
	}
	if Subcommands(cmds, nil) != nil {
		t.Error("no man index gave subcommands")
	}
}
