package mancmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
)

// testApp is cmdtest's small command tree with `__man`.
func testApp(f *cmdutil.Factory, ran *bool) *cli.App {
	return cmdtest.App(ran, NewCmdMan(f, nil))
}

// TestManPage: the page's sections, from the tree: the description's
// parts, each command, ENVIRONMENT from the flags' variables and FILES
// under the prefix.
func TestManPage(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	ran := false
	page, err := ManPage(testApp(f, &ran), "/opt/cmdai")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`.TH cmdai 1 "" "cmdai 1.2.3" "User Commands"`,
		".SH DESCRIPTION\ncmdai indexes man pages.",
		".SH EXAMPLES",
		"$ cmdai index init",
		".SH EXIT CODES",
		".SH ENVIRONMENT",
		".TP\nCMDAI_BATCH_MODE\nas --batch-mode: CI mode\n",
		// CMDAI_JSON: two flags, two meanings
		".TP\nCMDAI_JSON\nas --json, in each command that has that flag\n",
		".TP\nCMDAI_TOP_K\nas --top-k: \\fBN\\fR results\n",
		"CMDAI_HOME",
		"XDG_RUNTIME_DIR",
		".SH FILES",
		"/opt/cmdai/bin/cmdai",
		"/opt/cmdai/lib/cmdai/chroma/bin/chroma",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if i, j := strings.Index(page, ".SH EXAMPLES"), strings.Index(page, ".SH ENVIRONMENT"); i < 0 || j < i {
		t.Errorf("EXAMPLES at %d, ENVIRONMENT at %d: want the help's sections first", i, j)
	}
	page, err = ManPage(testApp(f, &ran), "")
	if err != nil || !strings.Contains(page, "PREFIX/bin/cmdai") {
		t.Errorf("no prefix: %v; want PREFIX in FILES", err)
	}
}

// TestManCommand: `__man` prints the page; --prefix reaches it.
func TestManCommand(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	ran := false
	app := testApp(f, &ran)
	if err := app.Run([]string{"cmdai", "__man", "--prefix", "/usr/local"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), ".TH cmdai 1") || !strings.Contains(out.String(), "/usr/local/bin/cmdai") {
		t.Errorf("page:\n%.300s", out)
	}
	var got *ManOptions
	cmd := NewCmdMan(f, func(o *ManOptions) error { got = o; return nil })
	if err := cmdtest.Run(t, cmd, nil, "__man", "--prefix", "/p"); err != nil || got == nil || got.Prefix != "/p" || got.App == nil {
		t.Errorf("options %+v: %v", got, err)
	}
	cmdtest.Usage(t, cmdtest.Run(t, NewCmdMan(f, nil), nil, "__man", "extra"), `unexpected argument "extra"`)
	cmdtest.Usage(t, cmdtest.Run(t, NewCmdMan(f, nil), nil, "__man", "--prefix", ""), "--prefix needs a value")
	if !cmd.Hidden {
		t.Error("__man is listed in the help")
	}
}

func TestSplitHelp(t *testing.T) {
	intro, sections := splitHelp("Intro line.\n\nEXAMPLES:\n   $ a\nEXIT CODES:\n   0  ok\nNot: a heading\n")
	if intro != "Intro line.\n" {
		t.Errorf("intro %q", intro)
	}
	want := []helpSection{{"EXAMPLES", "   $ a\n"}, {"EXIT CODES", "   0  ok\nNot: a heading\n\n"}}
	if !slices.Equal(sections, want) {
		t.Errorf("sections %q, want %q", sections, want)
	}
}

func TestHelpToMarkdown(t *testing.T) {
	got := helpToMarkdown("   Prose with *stars* and `code_span`.\n\n   $ cmdai index init\n     --force\n\n   0  success\n   -x starts a line\n")
	want := "Prose with \\*stars\\* and `code_span`.\n\n\n```\n$ cmdai index init\n  --force\n```\n\n0\n: success\n\\-x starts a line\n"
	if got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
}

func TestMdEscape(t *testing.T) {
	for in, want := range map[string]string{
		"a_b [c] <d>":  `a\_b \[c\] \<d\>`,
		"`a_b` c_d":    "`a_b` c\\_d",
		"# not a head": `\# not a head`,
		"+1 -2":        `\+1 -2`,
		`back\slash`:   `back\\slash`,
	} {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
}
