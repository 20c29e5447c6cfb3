package optable

import (
	"testing"

	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

func TestSpecsFromSynopsisAndProse(t *testing.T) {
	tb := buildTable(search.CommandDoc{Records: []shown.Match{
		{ID: "b.1#NAME", Kind: "summary", Text: "b(1) - a BSD tool\nSYNOPSIS\nb [-AB@1%] [-f file] [--long=VALUE]\nA sentence that is long enough to be prose and ends with a stop here."},
		{ID: "b.1#DESCRIPTION", Kind: "section", Text: "b(1) DESCRIPTION\n-q, --quiet\nsay less\n-rw-r--r-- 1 root root 0 file\n--level=N\nhow much"},
	}})
	for _, c := range "AB@1%fq" {
		if tb.Short[byte(c)] == nil {
			t.Errorf("-%c not learned", c)
		}
	}
	if s := tb.Short['f']; s == nil || s.Arg != ArgRequired {
		t.Errorf("-f file takes a value: %+v", s)
	}
	if s := tb.Long["--level"]; s == nil || s.Arg != ArgRequired || !s.Weak {
		t.Errorf("--level=N from prose: %+v", s)
	}
	if s := tb.Long["--long"]; s == nil || s.Arg != ArgRequired {
		t.Errorf("--long=VALUE from the synopsis: %+v", s)
	}
	if tb.ProseHeads != 2 || tb.Single["-rw-r--r--"] != nil {
		t.Errorf("a listing line is no heading: %d heads, %v", tb.ProseHeads, tb.Single)
	}
}

func TestHeadings(t *testing.T) {
	tb := buildTable(search.CommandDoc{Records: []shown.Match{
		{ID: "1", Kind: "option", Option: "--file", Text: "c(1) option -f, --file=ARCHIVE\nDoes a thing."},
		{ID: "2", Kind: "option", Option: "--color", Text: "c(1) option --color, --colour [=WHEN]\nDoes a thing."},
		{ID: "3", Kind: "option", Option: "-exec", Text: "c(1) option -exec command ;\nDoes a thing."},
		{ID: "4", Kind: "option", Option: "-fprintf", Text: "c(1) option -fprintf file format\nDoes a thing."},
		{ID: "5", Kind: "option", Option: "--user", Text: "c(1) option -u user, --user=user\nDoes a thing."},
		{ID: "6", Kind: "option", Option: "--ignore-x", Text: "c(1) option --ignore-x, --no-ignore-x Ignore the exit codes of x.\nDoes a thing."},
		{ID: "7", Kind: "option", Option: "-R", Text: "c(1) option -R\n[bind_address:] port: host: hostport\nDoes a thing."},
		{ID: "8", Kind: "option", Option: "--[no-]verify", Text: "c(1) option --[no-]verify\nDoes a thing."},
		{ID: "9", Kind: "option", Option: "-i", Text: "c(1) option -i[SUFFIX], --in-place[=SUFFIX]\nDoes a thing."},
		{ID: "10", Kind: "option", Option: "-newerXY", Text: "c(1) option -newerXY reference\nDoes a thing."},
		{ID: "11", Kind: "option", Option: "--context", Text: "c(1) option -C, -NUM, --context NUM\nDoes a thing."},
		{ID: "12", Kind: "option", Option: "--LTYPE-line-format", Text: "c(1) option --LTYPE-line-format=LFMT\nDoes a thing."},
	}})
	for _, c := range []struct {
		got  *Spec
		want ArgKind
	}{{tb.Short['f'], ArgRequired}, {tb.Long["--file"], ArgRequired}, {tb.Long["--colour"], ArgOptional},
		{tb.Single["-exec"], ArgRequired}, {tb.Single["-fprintf"], ArgRequired}, {tb.Short['u'], ArgRequired},
		{tb.Long["--user"], ArgRequired}, {tb.Long["--no-ignore-x"], ArgNone}, {tb.Short['R'], ArgRequired},
		{tb.Long["--verify"], ArgNone}, {tb.Long["--no-verify"], ArgNone}, {tb.Short['i'], ArgOptional},
		{tb.Long["--in-place"], ArgOptional}, {tb.Numeric, ArgRequired}, {tb.Short['C'], ArgRequired}} {
		if c.got == nil || c.got.Arg != c.want {
			t.Errorf("%+v, want arg %d", c.got, c.want)
		}
	}
	if !tb.Single["-exec"].Exec || tb.Single["-fprintf"].NArgs != 2 {
		t.Errorf("-exec %+v -fprintf %+v", tb.Single["-exec"], tb.Single["-fprintf"])
	}
	if len(tb.Prefixes) != 1 || tb.Prefixes[0].Prefix != "-newer" || len(tb.Patterns) != 1 || !tb.Patterns[0].Re.MatchString("--unchanged-line-format") {
		t.Errorf("placeholders: %+v %+v", tb.Prefixes, tb.Patterns)
	}
}
