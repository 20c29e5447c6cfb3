package manparse

import "testing"

func TestInvokes(t *testing.T) {
	page := func(synopsis string) *Page {
		t.Helper()
		p, err := Parse([]byte(".TH T 1\n.SH NAME\nt \\- fixture\n.SH SYNOPSIS\n.nf\n" + synopsis + "\n.fi\n.SH DESCRIPTION\nText.\n"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		synopsis, parent, word string
		want                   bool
	}{
		{"git commit [-a | --interactive] [--amend]", "git", "commit", true},
		{"git merge-file [-L <current-name>] <current> <base>", "git", "merge-file", true},
		{"ip [ ip-OPTIONS ] route { COMMAND | help }", "ip", "route", true},
		{"ip [ OPTIONS ] neigh { COMMAND | help }", "ip", "neighbour", true}, // ip's abbreviation
		{"openssl dgst|digest [-digest] [-list]", "openssl", "digest", true},
		{"\\&'git credential' (fill|approve|reject)", "git", "credential", true},
		{"/usr/bin/perf record [-e <EVENT>] <command>", "perf", "record", true},
		{"gpg-wks-client [options] --supported user-id", "gpg", "wks-client", false},
		{"tc qdisc ... dev DEVICE ] add netem OPTIONS", "tc", "netem", false},
		{"openssl command [ options ... ] [ parameters ... ]", "openssl", "format-options", false},
		{"devlink [ OPTIONS ] port function rate { COMMAND | help }", "devlink", "rate", false},
		{"git [-C <path>] [--] <command>", "git", "commit", false},
		{"git", "git", "commit", false},
		{"ip [ OPTIONS ] ro { COMMAND }", "ip", "route", false}, // too short to be an abbreviation
	} {
		if got := page(tc.synopsis).Invokes(tc.parent, tc.word); got != tc.want {
			t.Errorf("%q: Invokes(%q, %q) = %v, want %v", tc.synopsis, tc.parent, tc.word, got, tc.want)
		}
	}
	noSyn, err := Parse([]byte(".TH T 1\n.SH NAME\nt \\- fixture\n.SH DESCRIPTION\ngit commit\n"))
	if err != nil {
		t.Fatal(err)
	}
	if noSyn.Invokes("git", "commit") {
		t.Error("a page without a SYNOPSIS invokes a subcommand")
	}
}

// git-log's "-<number>, -n <number>, --max-count=<number>": the first
// spelling stands for a family (-1, -5); the entry is -n and --max-count.
func TestPlaceholderSpelling(t *testing.T) {
	flags, arg := parseFlags("-<number>, -n <number>, --max-count=<number>")
	if len(flags) != 2 || flags[0] != "-n" || flags[1] != "--max-count" || arg != "<number>" {
		t.Errorf("parseFlags = %q, %q", flags, arg)
	}
	if flags, _ := parseFlags("-<number> lines"); flags != nil {
		t.Errorf("a placeholder alone is no option: %q", flags)
	}
}
