package mutate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// frob is our own fixture: a page with short, long, negated and
// synopsis-cluster options.
var frob = []string{
	"frob - frobnicate files\nSYNOPSIS\n  frob [-qz] [--color[=WHEN]] FILE...",
	"-a, --all\n  do not ignore entries starting with .",
	"-f, --file=ARCHIVE\n  use archive file ARCHIVE",
	"--recursive\n  descend into directories; see also --no-dereference",
}

func TestAbsentRefusesWhatThePageSpells(t *testing.T) {
	fs := NewFlagSet(frob...)
	for _, f := range []string{
		"-a", "-f", "--all", "--file", "--color", // spelled
		"-q", "-z", // synopsis cluster [-qz]
		"--recur", "--rec", // abbreviations of --recursive
		"--no-recursive",   // the negation of one
		"--dereference",    // the positive of --no-dereference
		"--no-dereference", // in prose
	} {
		if fs.Absent(f) {
			t.Errorf("Absent(%q) = true: the documentation has it", f)
		}
	}
	for _, f := range []string{"-b", "-Q", "--alll", "--recursive-all", "--colour", "-name"} {
		if !fs.Absent(f) {
			t.Errorf("Absent(%q) = false: the documentation does not have it", f)
		}
	}
}

func TestTyposAreOneEditAndSeeded(t *testing.T) {
	a, b := Typos("s1", "--verbose"), Typos("s1", "--verbose")
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two orders")
	}
	if reflect.DeepEqual(a, Typos("s2", "--verbose")) {
		t.Error("another seed gave the same order")
	}
	for _, x := range a {
		if !strings.HasPrefix(x, "--") || x == "--verbose" {
			t.Errorf("typo %q: not a long option, or no change", x)
		}
		if d := len(x) - len("--verbose"); d < -1 || d > 1 {
			t.Errorf("typo %q: more than one edit", x)
		}
	}
	if got := Typos("s", "-l"); !contains(got, "-k") || !contains(got, "-L") || len(got[0]) != 2 {
		t.Errorf("Typos(-l) = %v: want neighbours and the other case, single letters", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestApplyReplacesTheUnitWithAnAbsentOption(t *testing.T) {
	fs := NewFlagSet(frob...)
	line := "frob -af x.tar --recursive dir"
	long := Unit{Flag: "--recursive", Start: 15, End: 26}
	out, to, s, e, ok := Apply(line, long, fs, []string{"--recursive", "--rec", "--all", "--deep-tree"})
	if !ok || out != "frob -af x.tar --deep-tree dir" || to != "--deep-tree" || out[s:e] != "--deep-tree" {
		t.Fatalf("Apply(long) = %q %q [%d,%d) %v", out, to, s, e, ok)
	}
	// a letter of the cluster -af: a letter, in place
	letter := Unit{Flag: "-a", Start: 6, End: 7, Short: true, Cluster: true}
	out, to, s, e, ok = Apply(line, letter, fs, []string{"--deep-tree", "-q", "-Q"})
	if !ok || out != "frob -Qf x.tar --recursive dir" || to != "-Q" || out[s:e] != "Q" {
		t.Fatalf("Apply(letter) = %q %q [%d,%d) %v", out, to, s, e, ok)
	}
	if _, _, _, _, ok := Apply(line, letter, fs, Candidates(Invented, "s", letter, nil)); ok {
		t.Error("an invented long option went into a cluster")
	}
	if _, _, _, _, ok := Apply(line, long, fs, []string{"--all", "-f"}); ok {
		t.Error("Apply used a documented option")
	}
	// a number is no option name: tail -10 -> -01 is still tail -01
	if out, _, _, _, ok := Apply("frob -10 x", Unit{Flag: "-10", Start: 5, End: 8}, fs, []string{"-01", "-3"}); ok {
		t.Errorf("Apply made the number mutation %q", out)
	}
	// a range that does not hold the flag (quoted, shifted) is refused
	if _, _, _, _, ok := Apply(line, Unit{Flag: "--recursive", Start: 14, End: 25}, fs, []string{"--deep-tree"}); ok {
		t.Error("Apply replaced a range that does not hold the option")
	}
}

func TestSimilarTakesTheClosestCommandsOptions(t *testing.T) {
	docs := map[string]search.CommandDoc{
		"gzip":  doc("-c, --stdout", "-d, --decompress", "-k, --keep", "-9, --best"),
		"bzip2": doc("-c, --stdout", "-d, --decompress", "-k, --keep", "-s, --small"),
		"ls":    doc("-a, --all", "-l"),
		"git-x": doc("-c, --stdout", "-d, --decompress", "-k, --keep", "-9, --best"),
	}
	spell := func(n string) map[string]bool { return Spellings(docs[n]) }
	if got := MostSimilar("gzip", []string{"bzip2", "git-x", "gzip", "ls"}, spell); got != "git-x" {
		t.Errorf("MostSimilar(gzip) = %q, want git-x (same options)", got)
	}
	if got := MostSimilar("gzip", []string{"bzip2", "gzip", "ls"}, spell); got != "bzip2" {
		t.Errorf("MostSimilar(gzip) = %q, want bzip2", got)
	}
	if got := MostSimilar("ls", []string{"gzip"}, spell); got != "" {
		t.Errorf("MostSimilar(ls) = %q: shares nothing", got)
	}
	fs := NewFlagSet(docs["gzip"].Records[0].Text, docs["gzip"].Records[1].Text, docs["gzip"].Records[2].Text, docs["gzip"].Records[3].Text)
	u := Unit{Flag: "--keep", Start: 5, End: 11}
	out, to, _, _, ok := Apply("gzip --keep f", u, fs, Candidates(Similar, "s", u, spell("bzip2")))
	if !ok || to != "--small" || out != "gzip --small f" {
		t.Errorf("similar: %q %q %v, want bzip2's --small (its only long option gzip lacks)", out, to, ok)
	}
}

func doc(heads ...string) search.CommandDoc {
	var d search.CommandDoc
	for _, h := range heads {
		d.Records = append(d.Records, shown.Match{Kind: "option", Text: "x(1) option " + h + "\ntext"})
	}
	return d
}

func TestOnPage(t *testing.T) {
	page := PlainPage("SYNOPSIS\n  ls [-1AB] [\u2010\u2010color] FILE\n  -a, --all\n  --block-size=SIZE\n")
	for f, want := range map[string]bool{"--color": true, "-a": true, "-A": true, "-1": true, "--block-size": true,
		"--block": false, "-b": false, "--all-of": false, "-l": false} {
		if got := OnPage(page, f); got != want {
			t.Errorf("OnPage(%q) = %v, want %v", f, got, want)
		}
	}
}
