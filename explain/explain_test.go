package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/search"
)

func explainT(t *testing.T, line string) Result {
	t.Helper()
	r, err := Explain(context.Background(), line, fixtureLookup(nil), Options{})
	if err != nil {
		t.Fatalf("Explain(%q): %v", line, err)
	}
	return r
}

// cmdOf is the i-th command of r named name.
func cmdOf(t *testing.T, r Result, name string) Command {
	t.Helper()
	for _, c := range r.Commands {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no command %s in:\n%s", name, show(r))
	return Command{}
}

func wordOf(t *testing.T, c Command, text string) judge.Word {
	t.Helper()
	for _, w := range c.Words {
		if w.Text == text {
			return w
		}
	}
	t.Fatalf("no word %q in %s: %+v", text, c.Name, c.Words)
	return judge.Word{}
}

func wantWord(t *testing.T, r Result, cmd, text string, v judge.Verdict, option string) judge.Word {
	t.Helper()
	w := wordOf(t, cmdOf(t, r, cmd), text)
	if w.Verdict != v || w.Option != option {
		t.Errorf("%s %q: got %s %q (note %q), want %s %q\n%s", cmd, text, w.Verdict, w.Option, w.Note, v, option, show(r))
	}
	return w
}

func TestClusterValuesAndOffsets(t *testing.T) {
	line := "tar -xzvf a.tgz -C /tmp | grep -c foo"
	r := explainT(t, line)
	if len(r.Commands) != 2 || !r.OK || r.UnknownCount != 0 {
		t.Fatalf("want two known commands:\n%s", show(r))
	}
	tar := cmdOf(t, r, "tar")
	if tar.Verdict != judge.Known || tar.Page != "tar(1)" || tar.Summary == "" || tar.Start != 0 || tar.End != 23 {
		t.Errorf("tar: %+v", tar)
	}
	w := wantWord(t, r, "tar", "-xzvf", judge.Known, "")
	var got []string
	for _, f := range w.Flags {
		got = append(got, fmt.Sprintf("%s=%s@%d-%d", f.Text, f.Option, f.Start, f.End))
		if line[f.Start:f.End] != strings.TrimPrefix(f.Text, "-") {
			t.Errorf("flag %s offsets %d-%d point at %q", f.Text, f.Start, f.End, line[f.Start:f.End])
		}
		if !strings.HasPrefix(f.Help, "tar(1) option ") || f.OptionID == "" {
			t.Errorf("flag %s: help %q id %q", f.Text, f.Help, f.OptionID)
		}
	}
	want := []string{"-x=--extract@5-6", "-z=--gzip@6-7", "-v=--verbose@7-8", "-f=--file@8-9"}
	if !slices.Equal(got, want) {
		t.Errorf("flags %v, want %v", got, want)
	}
	v := wantWord(t, r, "tar", "a.tgz", judge.Operand, "")
	if v.Of != "--file" || line[v.Start:v.End] != "a.tgz" {
		t.Errorf("a.tgz: %+v", v)
	}
	if d := wantWord(t, r, "tar", "/tmp", judge.Operand, ""); d.Of != "--directory" {
		t.Errorf("/tmp is -C's value: %+v", d)
	}
	c := wantWord(t, r, "grep", "-c", judge.Known, "--count")
	if line[c.Start:c.End] != "-c" {
		t.Errorf("-c offsets %d-%d", c.Start, c.End)
	}
	wantWord(t, r, "grep", "foo", judge.Operand, "")
}

func TestAttachedValues(t *testing.T) {
	r := explainT(t, "tar -cfout.tar -C/tmp dir; sort -t: -k2,2n f")
	w := wantWord(t, r, "tar", "-cfout.tar", judge.Known, "")
	if len(w.Flags) != 3 || w.Flags[2].Text != "out.tar" || w.Flags[2].Of != "--file" || w.Flags[2].Start != 7 {
		t.Errorf("-cfout.tar flags: %+v", w.Flags)
	}
	wantWord(t, r, "tar", "dir", judge.Operand, "")
	wantWord(t, r, "sort", "-t:", judge.Known, "--field-separator")
	wantWord(t, r, "sort", "f", judge.Operand, "")
}

func TestLongOptions(t *testing.T) {
	r := explainT(t, "grep --reg x --fizz=y --colour=always --color auto --count --context 3 --ex z --zap q")
	w := wantWord(t, r, "grep", "--reg", judge.Known, "--regexp")
	if !strings.Contains(w.Note, "abbreviation of --regexp") {
		t.Errorf("--reg note %q", w.Note)
	}
	if v := wordOf(t, cmdOf(t, r, "grep"), "x"); v.Of != "--regexp" {
		t.Errorf("x is --reg's value: %+v", v)
	}
	wantWord(t, r, "grep", "--fizz=y", judge.UnknownOption, "")
	wantWord(t, r, "grep", "--colour=always", judge.Known, "--color")
	wantWord(t, r, "grep", "--color", judge.Known, "--color")
	// An optional value is taken only with "=": auto is an operand.
	if a := wordOf(t, cmdOf(t, r, "grep"), "auto"); a.Verdict != judge.Operand || a.Of != "" {
		t.Errorf("auto: %+v", a)
	}
	wantWord(t, r, "grep", "--count", judge.Known, "--count")
	if v := wordOf(t, cmdOf(t, r, "grep"), "3"); v.Of != "--context" {
		t.Errorf("3 is --context's value: %+v", v)
	}
	// --ex abbreviates --exclude and --exclude-dir, two options.
	if a := wordOf(t, cmdOf(t, r, "grep"), "--ex"); a.Verdict != judge.Undocumented || !strings.Contains(a.Note, "ambiguous") {
		t.Errorf("--ex: %+v", a)
	}
	wantWord(t, r, "grep", "--zap", judge.UnknownOption, "")
	if r.UnknownCount != 2 || r.OK {
		t.Errorf("unknown count %d ok %v", r.UnknownCount, r.OK)
	}
	// A unique prefix of one option is that option, as getopt_long takes it.
	r = explainT(t, "grep --file=y x")
	wantWord(t, r, "grep", "--file=y", judge.Known, "--files-with-matches")
	if r.UnknownCount != 0 {
		t.Errorf("unknown count %d ok %v", r.UnknownCount, r.OK)
	}
}

func TestNegationsAndPlaceholders(t *testing.T) {
	r := explainT(t, "git commit --no-verify --verify --amend && git commit --no-amend")
	cs := r.Commands
	if len(cs) != 2 {
		t.Fatalf("%s", show(r))
	}
	for _, w := range cs[0].Words[1:] {
		if w.Verdict != judge.Known {
			t.Errorf("%s: %+v", w.Text, w)
		}
	}
	if w := cs[1].Words[1]; w.Verdict != judge.Undocumented || !strings.Contains(w.Note, "negation") {
		t.Errorf("--no-amend, not spelt out: %+v", w)
	}
}

func TestEndOfOptionsAndOperands(t *testing.T) {
	r := explainT(t, "grep -i -- -v - file && rm file -r")
	g := cmdOf(t, r, "grep")
	if w := wordOf(t, g, "--"); w.Verdict != judge.Operand || w.Note != "ends the options" {
		t.Errorf("--: %+v", w)
	}
	if w := wordOf(t, g, "-v"); w.Verdict != judge.Operand {
		t.Errorf("-v after -- is an operand: %+v", w)
	}
	if w := wordOf(t, g, "-"); w.Verdict != judge.Operand {
		t.Errorf("- alone: %+v", w)
	}
	// GNU getopt permutes: an option may follow the operands.
	wantWord(t, r, "rm", "-r", judge.Known, "--recursive")
}

func TestNumericOptions(t *testing.T) {
	r := explainT(t, "grep -3 x f; head -5 f; head -n -5 f; sort -k 2 -r -- -1")
	wantWord(t, r, "grep", "-3", judge.Known, "--context")
	h := r.Commands[1]
	if w := h.Words[0]; w.Verdict != judge.Known || w.Option != "--lines" {
		t.Errorf("head -5: %+v", w)
	}
	if w := r.Commands[2].Words[1]; w.Verdict != judge.Operand || w.Of != "--lines" {
		t.Errorf("head -n -5: -5 is -n's value: %+v", w)
	}
}

func TestNegativeNumberIsNoOption(t *testing.T) {
	r := explainT(t, "cat -1")
	if w := r.Commands[0].Words[0]; w.Verdict != judge.Operand {
		t.Errorf("cat -1: %+v", w)
	}
}

func TestFind(t *testing.T) {
	line := `find -L . /srv -name '*.go' ! -type d \( -mtime -1 -o -newermt 2024-01-01 \) -size +1M -fprintf out '%p\n' -exec rm -f {} \; -exec cp -t /x {} + -print0`
	r := explainT(t, line)
	if !r.OK {
		t.Fatalf("all known:\n%s", show(r))
	}
	f := cmdOf(t, r, "find")
	for _, c := range []struct {
		text string
		v    judge.Verdict
		of   string
	}{{"-L", judge.Known, ""}, {".", judge.Operand, ""}, {"/srv", judge.Operand, ""}, {"-name", judge.Known, ""}, {"'*.go'", judge.Operand, "-name"},
		{"!", judge.Known, ""}, {"d", judge.Operand, "-type"}, {`\(`, judge.Known, ""}, {"-1", judge.Operand, "-mtime"}, {"-o", judge.Known, ""},
		{"-newermt", judge.Known, ""}, {"2024-01-01", judge.Operand, "-newerXY"}, {"+1M", judge.Operand, "-size"}, {"out", judge.Operand, "-fprintf"},
		{`'%p\n'`, judge.Operand, "-fprintf"}, {`\;`, judge.Operand, ""}, {"+", judge.Operand, ""}, {"-print0", judge.Known, ""}} {
		w := wordOf(t, f, c.text)
		if w.Verdict != c.v || w.Of != c.of {
			t.Errorf("find %s: %+v, want %s of %q", c.text, w, c.v, c.of)
		}
	}
	rm := cmdOf(t, r, "rm")
	if !slices.Equal(rm.Via, []string{"find -exec"}) || rm.Verdict != judge.Known {
		t.Errorf("rm: %+v", rm)
	}
	wantWord(t, r, "rm", "-f", judge.Known, "--force")
	cp := cmdOf(t, r, "cp")
	if w := wordOf(t, cp, "/x"); w.Of != "--target-directory" {
		t.Errorf("cp -t /x: %+v", w)
	}
	r = explainT(t, "find . -nmae x -print")
	wantWord(t, r, "find", "-nmae", judge.UnknownOption, "")
}

func TestTarTraditionalAndPs(t *testing.T) {
	r := explainT(t, "tar xzvf a.tgz -C /tmp")
	w := wantWord(t, r, "tar", "xzvf", judge.Known, "")
	if len(w.Flags) != 4 || w.Flags[3].Option != "--file" || w.Flags[0].Start != 4 {
		t.Errorf("flags: %+v", w.Flags)
	}
	if v := wordOf(t, r.Commands[0], "a.tgz"); v.Of != "--file" {
		t.Errorf("a.tgz: %+v", v)
	}
	r = explainT(t, "tar xqf a.tar")
	if w := r.Commands[0].Words[0]; w.Verdict != judge.UnknownOption {
		t.Errorf("q is no tar letter: %+v", w)
	}
	r = explainT(t, "ps aux; ps -ef; ps -o pid= -u root")
	if w := r.Commands[0].Words[0]; w.Verdict != judge.Undocumented {
		t.Errorf("ps aux: %+v", w)
	}
	if !r.OK {
		t.Errorf("ps:\n%s", show(r))
	}
}

func TestWrappers(t *testing.T) {
	line := "sudo -u root env -u HOME LANG=C nice -n 5 timeout -s KILL 10 xargs -0 -n 2 -I{} cp -v {} /tmp"
	r := explainT(t, line)
	var names []string
	for _, c := range r.Commands {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"sudo", "env", "nice", "timeout", "xargs", "cp"}) {
		t.Fatalf("commands %v:\n%s", names, show(r))
	}
	cp := cmdOf(t, r, "cp")
	if !slices.Equal(cp.Via, []string{"sudo", "env", "nice", "timeout", "xargs"}) {
		t.Errorf("cp via %v", cp.Via)
	}
	wantWord(t, r, "cp", "-v", judge.Known, "--verbose")
	if w := wordOf(t, cmdOf(t, r, "sudo"), "root"); w.Of != "--user" {
		t.Errorf("root: %+v", w)
	}
	if w := wordOf(t, cmdOf(t, r, "env"), "LANG=C"); w.Verdict != judge.Operand || !strings.Contains(w.Note, "environment") {
		t.Errorf("LANG=C: %+v", w)
	}
	if w := wordOf(t, cmdOf(t, r, "timeout"), "10"); w.Verdict != judge.Operand {
		t.Errorf("10: %+v", w)
	}
	if !r.OK {
		t.Errorf("all known:\n%s", show(r))
	}
	// time is bash's keyword; an unknown wrapper option is still flagged.
	r = explainT(t, "time grep -c x f; xargs -Q cat")
	if g := cmdOf(t, r, "grep"); !slices.Equal(g.Via, []string{"time"}) {
		t.Errorf("grep via %v", g.Via)
	}
	wantWord(t, r, "xargs", "-Q", judge.UnknownOption, "")
	if c := cmdOf(t, r, "cat"); !slices.Equal(c.Via, []string{"xargs"}) {
		t.Errorf("cat via %v", c.Via)
	}
	// sudo -l runs nothing.
	r = explainT(t, "sudo -l grep")
	if len(r.Commands) != 1 {
		t.Errorf("sudo -l:\n%s", show(r))
	}
}

func TestSubcommands(t *testing.T) {
	r := explainT(t, "git -C /src commit -am 'fix it' -- a.go")
	c := r.Commands[0]
	if c.Name != "git-commit" || c.Page != "git-commit(1)" || !r.OK {
		t.Fatalf("%s", show(r))
	}
	if w := wordOf(t, c, "/src"); w.Of != "-C" {
		t.Errorf("/src: %+v", w)
	}
	w := wordOf(t, c, "-am")
	if w.Verdict != judge.Known || len(w.Flags) != 2 || w.Flags[1].Option != "--message" {
		t.Errorf("-am: %+v", w)
	}
	// No page for git-stash: its options are not git's to refuse.
	r = explainT(t, "git stash -u")
	if w := r.Commands[0].Words[1]; w.Verdict != judge.Undocumented || r.UnknownCount != 0 {
		t.Errorf("git stash -u: %+v", w)
	}
	// git's own options before the subcommand are still judged.
	r = explainT(t, "git --bogus status")
	if r.UnknownCount != 1 {
		t.Errorf("git --bogus:\n%s", show(r))
	}
}

func TestBuiltinsAndMissing(t *testing.T) {
	r := explainT(t, "cd /tmp && echo -n hi && echo -x && export A=1 && nosuch -v && ./run.sh -q")
	if c := cmdOf(t, r, "cd"); c.Verdict != judge.Undocumented || c.Note != "a shell builtin" {
		t.Errorf("cd: %+v", c)
	}
	echo := r.Commands[1]
	if echo.Verdict != judge.Known || echo.Words[0].Verdict != judge.Known {
		t.Errorf("echo -n, judged by its page: %+v", echo)
	}
	if w := r.Commands[2].Words[0]; w.Verdict != judge.UnknownOption {
		t.Errorf("echo -x: a mistaken option (echo would print it): %+v", w)
	}
	if r := explainT(t, "echo ----- -1; echo rm -rf x"); r.UnknownCount != 0 {
		t.Errorf("echo prints dashes:\n%s", show(r))
	}
	if c := cmdOf(t, r, "export"); c.Verdict != judge.Undocumented {
		t.Errorf("export: %+v", c)
	}
	n := cmdOf(t, r, "nosuch")
	if n.Verdict != judge.NotInstalled || n.Words[0].Verdict != judge.Undocumented {
		t.Errorf("nosuch: %+v", n)
	}
	if c := cmdOf(t, r, "./run.sh"); c.Verdict != judge.Undocumented {
		t.Errorf("./run.sh: %+v", c)
	}
	if r.NotInstalledCount != 1 || r.OK || r.UnknownCount != 1 {
		t.Errorf("counts: %+v", r)
	}
	onPath := func(c string) bool { return c == "nosuch" }
	r2, err := Explain(context.Background(), "nosuch -v", fixtureLookup(nil), Options{OnPath: onPath})
	if err != nil || r2.Commands[0].Verdict != judge.Undocumented || r2.NotInstalledCount != 0 {
		t.Errorf("on PATH: %+v %v", r2, err)
	}
}

func TestNothingToJudgeBy(t *testing.T) {
	r := explainT(t, "helpish -z --zz x")
	for _, w := range r.Commands[0].Words[:2] {
		if w.Verdict != judge.Undocumented {
			t.Errorf("%s: %+v", w.Text, w)
		}
	}
	if r.UnknownCount != 0 || r.Commands[0].Verdict != judge.Known {
		t.Errorf("%s", show(r))
	}
}

func TestProseMentionIsKnown(t *testing.T) {
	r := explainT(t, "ls -1 --group-directories-first -lah --bogus")
	w := wantWord(t, r, "ls", "--group-directories-first", judge.Known, "--group-directories-first")
	if !strings.Contains(w.Note, "page's text") || w.OptionID != "ls.1#DESCRIPTION#0" {
		t.Errorf("prose mention: %+v", w)
	}
	wantWord(t, r, "ls", "-1", judge.Known, "-1")
	wantWord(t, r, "ls", "--bogus", judge.UnknownOption, "")
}

func TestShellStructure(t *testing.T) {
	line := "LC_ALL=C sort f > out 2>&1; (cat a | wc -l) && { grep -c x f; } || echo $(head -n 1 f) `cat g` <(ls -l); " +
		"for f in *.go; do wc -w \"$f\"; done; if grep -q x f; then rm -f f; fi; case $x in a) cat -n f;; esac; while true; do sleep 1; done"
	r := explainT(t, line)
	var names []string
	for _, c := range r.Commands {
		names = append(names, c.Name)
	}
	want := []string{"sort", "cat", "wc", "grep", "echo", "head", "cat", "ls", "wc", "grep", "rm", "cat", "true", "sleep"}
	if !slices.Equal(names, want) {
		t.Errorf("commands %v\nwant %v", names, want)
	}
	s := r.Commands[0]
	if len(s.Words) != 1 || s.Words[0].Text != "f" || s.Start != 9 {
		t.Errorf("sort: redirections and assignments are no words: %+v", s)
	}
	// Our fixture grep has no -q: the one word flagged.
	if r.UnknownCount != 1 || wordOf(t, r.Commands[9], "-q").Verdict != judge.UnknownOption {
		t.Errorf("grep -q:\n%s", show(r))
	}
}

func TestExpansions(t *testing.T) {
	r := explainT(t, `grep $OPT -e "$P" --exclude=$G -$X f*.txt {a,b}.c; $EDITOR x`)
	g := r.Commands[0]
	if w := wordOf(t, g, "$OPT"); w.Verdict != judge.Operand {
		t.Errorf("$OPT: %+v", w)
	}
	if w := wordOf(t, g, `"$P"`); w.Of != "--regexp" {
		t.Errorf("$P: %+v", w)
	}
	wantWord(t, r, "grep", "--exclude=$G", judge.Known, "--exclude")
	if w := wordOf(t, g, "-$X"); w.Verdict == judge.UnknownOption {
		t.Errorf("-$X is never a false alarm: %+v", w)
	}
	if r.UnknownCount != 0 {
		t.Errorf("%s", show(r))
	}
	if c := r.Commands[1]; c.Verdict != judge.Undocumented || !strings.Contains(c.Note, "run time") {
		t.Errorf("$EDITOR: %+v", c)
	}
}

func TestFunctionsAndAliases(t *testing.T) {
	line := "f() { grep -c x \"$1\"; }; f a; alias ll='ls -l --bogus'; ll /"
	r := explainT(t, line)
	var fcall, llcall, lsc Command
	for _, c := range r.Commands {
		switch c.Name {
		case "f":
			fcall = c
		case "ll":
			llcall = c
		case "ls":
			lsc = c
		}
	}
	if fcall.Verdict != judge.Undocumented || !strings.Contains(fcall.Note, "function") {
		t.Errorf("f: %+v", fcall)
	}
	if llcall.Verdict != judge.Undocumented || !strings.Contains(llcall.Note, "alias") {
		t.Errorf("ll: %+v", llcall)
	}
	if !slices.Equal(lsc.Via, []string{"alias ll"}) {
		t.Errorf("ls via %v", lsc.Via)
	}
	b := wordOf(t, lsc, "--bogus")
	if b.Verdict != judge.UnknownOption || line[b.Start:b.End] != "--bogus" {
		t.Errorf("--bogus in the alias body: %+v", b)
	}
	cmdOf(t, r, "grep")
}

func TestShellDashC(t *testing.T) {
	line := `sh -c 'grep -c x f | wc -l' && find . -exec sh -c 'cat "$1"' _ {} \;`
	r := explainT(t, line)
	g := cmdOf(t, r, "grep")
	if !slices.Equal(g.Via, []string{"sh -c"}) || line[g.Start:g.Start+4] != "grep" {
		t.Errorf("grep: %+v", g)
	}
	c := cmdOf(t, r, "cat")
	if !slices.Equal(c.Via, []string{"find -exec", "sh -c"}) {
		t.Errorf("cat via %v", c.Via)
	}
}

func TestBadLines(t *testing.T) {
	for name, line := range map[string]string{
		"empty":           "",
		"blank":           "  \t\n",
		"unbalanced":      "grep 'foo",
		"unbalanced dbl":  `echo "a`,
		"too long":        "echo " + strings.Repeat("a", 1<<20),
		"nul":             "ls\x00 -l",
		"binary":          "ls \xff\xfe",
		"control":         "ls \x01",
		"open subshell":   "(ls",
		"dangling pipe":   "ls |",
		"bad redirection": "ls >",
	} {
		_, err := Explain(context.Background(), line, fixtureLookup(nil), Options{})
		if !errors.Is(err, ErrBadLine) {
			t.Errorf("%s: err %v, want ErrBadLine", name, err)
		}
	}
	_, err := Explain(context.Background(), "grep 'foo", fixtureLookup(nil), Options{})
	if err == nil || !strings.Contains(err.Error(), "1:6") || !strings.Contains(err.Error(), "quote") {
		t.Errorf("unbalanced quote: want line:col and what to fix: %v", err)
	}
}

func TestBadLineHints(t *testing.T) {
	for line, hint := range map[string]string{
		"du -s <file>":   "placeholder",
		"find . ( -name": "quote the character",
		"echo 'a":        "unbalanced quote",
		"if true; then":  "ends too early",
	} {
		_, err := Explain(context.Background(), line, fixtureLookup(nil), Options{})
		if !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), hint) {
			t.Errorf("%q: %v, want a hint with %q", line, err, hint)
		}
	}
}

func TestHereDocWithoutBody(t *testing.T) {
	r := explainT(t, "cat <<'EOF' | grep -c x")
	if len(r.Commands) != 2 || !r.OK {
		t.Errorf("%s", show(r))
	}
}

func TestHereDoc(t *testing.T) {
	r := explainT(t, "cat <<EOF | grep -c x\nrm -rf /\n--bogus\nEOF")
	var names []string
	for _, c := range r.Commands {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"cat", "grep"}) || !r.OK {
		t.Errorf("a here-doc's body is no command: %v\n%s", names, show(r))
	}
}

func TestLookupFailureIsNoBadLine(t *testing.T) {
	boom := errors.New("chroma down")
	l := func(ctx context.Context, c string) (search.CommandDoc, error) { return search.CommandDoc{}, boom }
	_, err := Explain(context.Background(), "ls -l", l, Options{})
	if !errors.Is(err, boom) || errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), "ls") {
		t.Errorf("err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Explain(ctx, "ls -l", fixtureLookup(nil), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestCachedLookup(t *testing.T) {
	var calls atomic.Int64
	l := CachedLookup(fixtureLookup(&calls))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				if _, err := Explain(context.Background(), "grep -c x f | nosuch -q | tar -tf a", l, Options{}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	// grep, grep-x (a subcommand page?), nosuch, tar, tar's... each once.
	if n := calls.Load(); n > 6 {
		t.Errorf("%d lookups for a handful of names: not memoised", n)
	}
	// A passing failure is not kept.
	var fails atomic.Int64
	flaky := CachedLookup(func(ctx context.Context, c string) (search.CommandDoc, error) {
		if fails.Add(1) == 1 {
			return search.CommandDoc{}, errors.New("timeout")
		}
		d, _ := fixtureDoc(c)
		return d, nil
	})
	if _, err := flaky(context.Background(), "ls"); err == nil {
		t.Fatal("first call fails")
	}
	if d, err := flaky(context.Background(), "ls"); err != nil || d.Command != "ls" {
		t.Errorf("retry: %v %v", d.Command, err)
	}
}

func TestJSONShape(t *testing.T) {
	r := explainT(t, "tar -xzf a.tgz | nosuch")
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"line", "commands", "unknown_count", "not_installed_count", "ok"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	c := m["commands"].([]any)[0].(map[string]any)
	for _, k := range []string{"command", "verdict", "page", "summary", "start", "end", "words"} {
		if _, ok := c[k]; !ok {
			t.Errorf("command has no %q: %v", k, c)
		}
	}
	w := c["words"].([]any)[0].(map[string]any)
	for _, k := range []string{"text", "start", "end", "verdict", "flags"} {
		if _, ok := w[k]; !ok {
			t.Errorf("word has no %q: %v", k, w)
		}
	}
	if c2 := m["commands"].([]any)[1].(map[string]any); c2["verdict"] != "not installed" {
		t.Errorf("nosuch: %v", c2)
	}
	// No command at all still gives a list.
	r = explainT(t, "A=1")
	if b, _ := json.Marshal(r); !strings.Contains(string(b), `"commands":[]`) {
		t.Errorf("%s", b)
	}
}

func TestCommandQuirks(t *testing.T) {
	r := explainT(t, "chmod -x f; chmod u+x,go-w f; chmod -R +x d; kill -9 1; kill -HUP 2; kill -s TERM 3; tail -n +5 f; tail -f f")
	if !r.OK {
		t.Errorf("all fine:\n%s", show(r))
	}
	if w := r.Commands[0].Words[0]; w.Verdict != judge.Operand || w.Note != "a mode" {
		t.Errorf("chmod -x: %+v", w)
	}
	if w := r.Commands[3].Words[0]; w.Verdict != judge.Known || w.Note != "a signal" {
		t.Errorf("kill -9: %+v", w)
	}
	if w := r.Commands[6].Words[1]; w.Of != "--lines" {
		t.Errorf("tail -n +5: %+v", w)
	}
	r = explainT(t, "chmod -Q f; kill -q 1")
	if r.UnknownCount != 2 {
		t.Errorf("chmod -Q and kill -q are unknown:\n%s", show(r))
	}
}

func TestSingleDashLongOptions(t *testing.T) {
	r := explainT(t, "javaish -cp lib -verbose -jar app.jar")
	if !r.OK {
		t.Errorf("%s", show(r))
	}
	if w := r.Commands[0].Words[1]; w.Of != "-cp" {
		t.Errorf("lib: %+v", w)
	}
	r = explainT(t, "javaish -verbosee -jar app.jar")
	if w := r.Commands[0].Words[0]; w.Verdict != judge.UnknownOption || len(w.Flags) != 0 {
		t.Errorf("-verbosee is one unknown option, not a cluster: %+v", w)
	}
}

func TestDynamicValues(t *testing.T) {
	r := explainT(t, `head -n$N f; grep --count=3 x`)
	w := r.Commands[0].Words[0]
	if w.Verdict != judge.Known || len(w.Flags) != 2 || w.Flags[1].Of != "--lines" || w.Flags[1].Text != "$N" {
		t.Errorf("-n$N: %+v", w)
	}
	if w := r.Commands[1].Words[0]; w.Verdict != judge.Known || !strings.Contains(w.Note, "value") {
		t.Errorf("--count=3: %+v", w)
	}
}

func TestAliasBodyThatDoesNotParse(t *testing.T) {
	r := explainT(t, `alias bad='ls "'`)
	if w := r.Commands[0].Words[0]; !strings.Contains(w.Note, "does not parse") {
		t.Errorf("%+v", w)
	}
}

func TestWrappersWithoutPages(t *testing.T) {
	// No page of watch, strace or chroot in the fixtures: our own
	// knowledge of their options still finds the command they run.
	r := explainT(t, "watch -n 5 'grep -c x f | wc -l'; strace -f -o log cat f; chroot /srv ls -l; command -v ls")
	for _, c := range []struct{ name, via string }{{"grep", "watch"}, {"wc", "watch"}, {"cat", "strace"}, {"ls", "chroot"}} {
		found := false
		for _, cmd := range r.Commands {
			if cmd.Name == c.name && slices.Equal(cmd.Via, []string{c.via}) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s via %s not found:\n%s", c.name, c.via, show(r))
		}
	}
	if w := wordOf(t, cmdOf(t, r, "strace"), "log"); w.Of != "-o" {
		t.Errorf("log is -o's value: %+v", w)
	}
	if w := wordOf(t, cmdOf(t, r, "watch"), "-n"); w.Verdict != judge.Undocumented {
		t.Errorf("watch has no page: -n is undocumented, never unknown: %+v", w)
	}
	// command -v names a command; it runs none.
	if n := len(r.Commands); n != 8 {
		t.Errorf("%d commands:\n%s", n, show(r))
	}
}

func TestPartlyExpandedCluster(t *testing.T) {
	r := explainT(t, `rm -r$X f`)
	if w := r.Commands[0].Words[0]; w.Verdict != judge.Undocumented || !strings.Contains(w.Note, "run time") || w.Option != "--recursive" {
		t.Errorf("-r$X: %+v", w)
	}
}

func TestSubcommandUsageInThePage(t *testing.T) {
	r := explainT(t, "tmux -L sock attach -d -t work")
	if !r.OK {
		t.Fatalf("%s", show(r))
	}
	if w := wordOf(t, r.Commands[0], "work"); w.Of != "-t" {
		t.Errorf("work is -t's value: %+v", w)
	}
	r = explainT(t, "tmux attach-session -j")
	if r.UnknownCount != 1 {
		t.Errorf("-j is no option of attach-session's usage:\n%s", show(r))
	}
	// A subcommand with no usage line: its words are not judged.
	r = explainT(t, "tmux kill-server -j")
	if w := r.Commands[0].Words[1]; w.Verdict != judge.Undocumented || !strings.Contains(w.Note, "after the subcommand") {
		t.Errorf("%+v", w)
	}
}
