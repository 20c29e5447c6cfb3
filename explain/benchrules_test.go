package explain

import (
	"testing"

	"github.com/cmdai/cmdai/explain/judge"
)

// Rules found by the NL2Bash benchmark's train half (scripts/bench/explainbench;
// BENCHMARKS.md, "cmdai explain: accuracy on NL2Bash"), each on our own
// fixture.

func init() {
	fixtures["mnt"] = fixture{syn: "mnt [-t type] device dir\nmnt --make-[shared|slave|rprivate] mountpoint",
		desc: "attach a file system", heads: []string{"-t type", "-r, --read-only"}}
	fixtures["pager"] = fixture{syn: "pager [options] [file...]", desc: "page through text",
		heads: []string{"-E, --QUIT-AT-EOF", "-N, --LINE-NUMBERS", "-n, --line-numbers", "--LTYPE-line-format=FMT"}}
}

// A usage line's bracketed choice (--make-[shared|rprivate]) spells one
// option per alternative, and no other.
func TestChoiceInUsageLine(t *testing.T) {
	r := explainT(t, "mnt --make-rprivate / && mnt --make-shared /x")
	for _, w := range cmdOf(t, r, "mnt").Words {
		if w.Text == "--make-rprivate" && w.Verdict != judge.Known {
			t.Errorf("--make-rprivate: %s (%s), want known from the usage line's choice\n%s", w.Verdict, w.Note, show(r))
		}
	}
	r = explainT(t, "mnt --make-private /")
	wantWord(t, r, "mnt", "--make-private", judge.UnknownOption, "")
	r = explainT(t, "mnt --make-rslave /")
	wantWord(t, r, "mnt", "--make-rslave", judge.UnknownOption, "")
}

// A long option all in capitals (less's --QUIT-AT-EOF) is a spelling,
// not a placeholder that any long option of as many words would match;
// --LTYPE-line-format still is one.
func TestCapitalLongOptionIsASpelling(t *testing.T) {
	r := explainT(t, "pager --QUIT-AT-EOF --LINE-NUMBERS --old-line-format=x f")
	wantWord(t, r, "pager", "--QUIT-AT-EOF", judge.Known, "--QUIT-AT-EOF")
	wantWord(t, r, "pager", "--LINE-NUMBERS", judge.Known, "--LINE-NUMBERS")
	wantWord(t, r, "pager", "--old-line-format=x", judge.Known, "--LTYPE-line-format")
	for _, l := range []string{"pager --auto-hidden f", "pager --only-lines f", "pager --quit-at-end f"} {
		r = explainT(t, l)
		if r.UnknownCount != 1 {
			t.Errorf("%q: %d unknown, want 1 (no such option)\n%s", l, r.UnknownCount, show(r))
		}
	}
}

// kill -NAME is a signal only when NAME is one; -S is an option kill's
// page lacks.
func TestSignalNames(t *testing.T) {
	for _, l := range []string{"kill -HUP 1", "kill -SIGTERM 1", "kill -RTMIN+3 1", "kill -9 1", "kill -KILL 1"} {
		if r := explainT(t, l); !r.OK {
			t.Errorf("%q: not OK, want a signal\n%s", l, show(r))
		}
	}
	for _, l := range []string{"kill -S 1", "kill -SIGFOO 1", "kill -TERMS 1"} {
		if r := explainT(t, l); r.UnknownCount != 1 {
			t.Errorf("%q: %d unknown, want 1: no such signal, no such option\n%s", l, r.UnknownCount, show(r))
		}
	}
}
