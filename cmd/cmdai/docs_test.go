package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"mvdan.cc/sh/v3/syntax"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// docLine is one cmdai command line shown in the documentation.
type docLine struct {
	where string // file:line
	text  string
}

// TestDocsCommandsParse keeps README.md and docs/ true to the command
// tree: every cmdai command line they show (in a ```sh block, or inline
// as `cmdai ...`, or after a "$ " prompt in a captured session) must name real commands and real flags, with a value
// where a flag takes one. A renamed flag or command fails here with the
// file and line to fix. What the README's first commands print is run
// for real by scripts/ci/test-install.sh (its quick start) and the
// integration tests.
func TestDocsCommandsParse(t *testing.T) {
	app := newApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, func(string) string { return "" }, ""))
	files := []string{repoFile("README.md")}
	more, err := filepath.Glob(repoFile("docs/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(more) < 5 {
		t.Fatalf("docs/ holds %d Markdown files, want the guides README.md links to", len(more))
	}
	total := 0
	for _, file := range files {
		lines, err := docCommandLines(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			total++
			if err := checkDocCommand(app, l.text); err != nil {
				t.Errorf("%s: %q: %v", l.where, l.text, err)
			}
		}
	}
	t.Logf("%d cmdai command lines checked in %d files", total, len(files))
	if total < 40 {
		t.Errorf("found %d cmdai command lines in the docs, want at least 40: is the extraction broken?", total)
	}
}

// TestCheckDocCommand shows that the check can fail: each line here is
// wrong in one way the docs could drift.
func TestCheckDocCommand(t *testing.T) {
	app := newApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, func(string) string { return "" }, ""))
	for _, bad := range []string{
		`cmdai index qurey "x"`,
		`cmdai index query "x" --no-such-flag`,
		`cmdai index query "x" -k`,
		`cmdai nosuchcommand`,
		`cmdai index --json query x`,
		`cmdai index download debian-12 --verify`,
	} {
		if err := checkDocCommand(app, bad); err == nil {
			t.Errorf("checkDocCommand(%q) passed, want an error", bad)
		}
	}
	for _, good := range []string{
		`cmdai index query "count lines" -k 3 --json`,
		`cmdai --batch-mode index init`,
		`cmdai explain 'tar -xzvf a.tgz | grep -c foo'`,
		`cmdai index clear --confirm`,
		`cmdai index query --mode=semantic x`,
	} {
		if err := checkDocCommand(app, good); err != nil {
			t.Errorf("checkDocCommand(%q) = %v, want nil", good, err)
		}
	}
}

var inlineCmdai = regexp.MustCompile("`(cmdai [^`]+)`")

// docPlaceholder matches what the docs write for a value the reader fills
// in (<version>, <the key in packaging/release-key.pub>), which a shell
// would read as redirections.
var docPlaceholder = regexp.MustCompile(`<[A-Za-z][^<>\n]*[^\s<>]>`)

// docCommandLines returns the cmdai command lines of a Markdown file:
// each command of a ```sh block whose program is cmdai, each "$ cmdai"
// line of another fenced block, and each inline code span that starts
// with "cmdai ".
func docCommandLines(file string) ([]docLine, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []docLine
	inSh, inOther := false, false
	var block strings.Builder
	blockStart := 0
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case inSh && trimmed == "```":
			calls, err := shellCmdaiCalls(block.String())
			if err != nil {
				return nil, fmt.Errorf("%s:%d: the sh block does not parse: %w", file, blockStart, err)
			}
			for _, c := range calls {
				out = append(out, docLine{fmt.Sprintf("%s:%d", file, blockStart+int(c.line)), c.text})
			}
			inSh = false
			block.Reset()
		case inSh:
			block.WriteString(line + "\n")
		case inOther && trimmed == "```":
			inOther = false
		case inOther:
			// A captured session ("$ cmdai ...") shows a command too.
			if rest, ok := strings.CutPrefix(trimmed, "$ "); ok && strings.HasPrefix(rest, "cmdai ") {
				out = append(out, docLine{fmt.Sprintf("%s:%d", file, n), rest})
			}
		case trimmed == "```sh":
			inSh, blockStart = true, n
		case strings.HasPrefix(trimmed, "```"):
			inOther = true
		default:
			for _, m := range inlineCmdai.FindAllStringSubmatch(line, -1) {
				if first, _, _ := strings.Cut(strings.TrimPrefix(m[1], "cmdai "), " "); strings.HasSuffix(first, ":") {
					continue // a message cmdai prints ("cmdai serve: stopped"), not a command
				}
				out = append(out, docLine{fmt.Sprintf("%s:%d", file, n), m[1]})
			}
		}
	}
	return out, sc.Err()
}

type shellCall struct {
	line uint
	text string
}

// shellCmdaiCalls parses a shell snippet and returns each simple command
// whose program is cmdai, printed back as one line.
func shellCmdaiCalls(src string) ([]shellCall, error) {
	file, err := syntax.NewParser().Parse(strings.NewReader(docPlaceholder.ReplaceAllString(src, "PLACEHOLDER")), "")
	if err != nil {
		return nil, err
	}
	var out []shellCall
	printer := syntax.NewPrinter()
	syntax.Walk(file, func(node syntax.Node) bool {
		call, ok := node.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "cmdai" {
			return true
		}
		var words []string
		for _, w := range call.Args {
			var b strings.Builder
			_ = printer.Print(&b, w)
			words = append(words, b.String())
		}
		out = append(out, shellCall{call.Pos().Line(), strings.Join(words, " ")})
		return true
	})
	return out, nil
}

// checkDocCommand walks a cmdai command line through the command tree as
// urfave/cli (with cmdai's flags-after-arguments) would: each word that
// names a subcommand descends, each flag must be one of the current
// command's (or a global one before the first command), and a flag that
// takes a value must get one.
func checkDocCommand(app *cli.App, line string) error {
	calls, err := shellCmdaiCalls(line)
	if err != nil || len(calls) != 1 {
		return fmt.Errorf("not one shell command (%v)", err)
	}
	words, err := shellWords(line)
	if err != nil {
		return err
	}
	flags := app.Flags
	subs := app.Commands
	path := "cmdai"
	sawArg := false
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			return nil
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			name, hasValue := strings.TrimLeft(w, "-"), false
			if k := strings.IndexByte(name, '='); k >= 0 {
				name, hasValue = name[:k], true
			}
			fl := findFlag(flags, name)
			if fl == nil {
				return fmt.Errorf("%s has no flag %s", path, w)
			}
			if v, ok := fl.(cli.VisibleFlag); ok && !v.IsVisible() {
				return fmt.Errorf("%s %s is a hidden flag (an old spelling kept for scripts): show the one --help lists", path, w)
			}
			if takesValue(fl) && !hasValue {
				if i+1 >= len(words) {
					return fmt.Errorf("%s %s needs a value", path, w)
				}
				i++
			}
			continue
		}
		if sawArg {
			continue
		}
		if w == "help" && path == "cmdai" {
			return nil // urfave's own help command and its topics
		}
		if c := findCommand(subs, w); c != nil {
			path += " " + c.Name
			flags, subs = c.Flags, c.Subcommands
			continue
		}
		if len(subs) > 0 {
			return fmt.Errorf("%s has no command %q", path, w)
		}
		sawArg = true
	}
	return nil
}

// shellWords splits one command line as the shell would, keeping an
// expansion ($HOME, $(...)) as written: it stands for one argument.
func shellWords(line string) ([]string, error) {
	file, err := syntax.NewParser().Parse(strings.NewReader(docPlaceholder.ReplaceAllString(line, "PLACEHOLDER")), "")
	if err != nil {
		return nil, err
	}
	var words []string
	syntax.Walk(file, func(node syntax.Node) bool {
		call, ok := node.(*syntax.CallExpr)
		if !ok || words != nil {
			return words == nil
		}
		for _, w := range call.Args {
			if lit, ok := unquoted(w); ok {
				words = append(words, lit)
				continue
			}
			var b strings.Builder
			_ = syntax.NewPrinter().Print(&b, w)
			words = append(words, b.String())
		}
		return false
	})
	return words, nil
}

// unquoted gives a word's value when it is made of literals and quoted
// literals alone.
func unquoted(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	if name == "help" || name == "h" {
		return cli.HelpFlag
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.TakesValue()
	}
	return false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinksResolve keeps the guides linked: every relative link of
// README.md, BENCHMARKS.md and docs/ names a file that exists, and an
// anchor (#...) names a heading of that file, as GitHub spells it.
func TestDocsLinksResolve(t *testing.T) {
	files := []string{repoFile("README.md"), repoFile("BENCHMARKS.md")}
	for _, glob := range []string{repoFile("docs/*.md"), repoFile("docs/*/*.md")} {
		more, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	links := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: %v", file, n+1, target, err)
					continue
				}
				if anchor != "" && !hasHeadingSlug(t, dest, anchor) {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", file, n+1, target, dest, anchor)
				}
			}
		}
	}
	if links < 30 {
		t.Errorf("found %d relative links, want the README's and BENCHMARKS.md's: is the pattern broken?", links)
	}
}

// hasHeadingSlug says whether a Markdown file has a heading whose GitHub
// anchor is slug: lower case, punctuation dropped, spaces as hyphens.
func hasHeadingSlug(t *testing.T, file, slug string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		if githubSlug(strings.TrimLeft(line, "# ")) == slug {
			return true
		}
	}
	return false
}

func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
