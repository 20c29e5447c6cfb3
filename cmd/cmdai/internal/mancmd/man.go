// Package mancmd is the hidden `cmdai __man`: the cmdai(1) page, in roff,
// made from the command tree the binary runs, so that an installed page
// always matches the installed binary (`make install` writes it). It
// imports chroma for one constant: the Chroma version its FILES section
// names.
package mancmd

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
)

// ManOptions are the inputs of `cmdai __man`.
type ManOptions struct {
	*cmdutil.Factory
	// Prefix is the installation prefix the FILES section names.
	Prefix string
	// App is the command tree the page is made from.
	App *cli.App
}

// NewCmdMan is the hidden `cmdai __man`: the cmdai(1) page, in roff, made
// from the command tree of this binary. `make install` writes it to
// PREFIX/share/man/man1/cmdai.1 with --prefix PREFIX, so that its FILES
// section names the installed paths. runF, when not nil, replaces the
// run function (tests see the parsed options).
func NewCmdMan(f *cmdutil.Factory, runF func(*ManOptions) error) *cli.Command {
	opts := &ManOptions{Factory: f}
	return &cli.Command{
		Name:      "__man",
		Usage:     "print the cmdai(1) manual page (roff)",
		UsageText: "cmdai __man [--prefix DIR] > cmdai.1",
		Hidden:    true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prefix", Usage: "the installation prefix `DIR` the FILES section names (default: the word PREFIX)", Destination: &opts.Prefix},
		},
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.NoArgs(c, ""); err != nil {
				return err
			}
			opts.App = c.App
			if runF != nil {
				return runF(opts)
			}
			return runMan(opts)
		},
	}
}

// runMan prints the page of opts.App.
func runMan(opts *ManOptions) error {
	page, err := ManPage(opts.App, opts.Prefix)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(opts.IO.Out, page)
	return err
}

// ManPage renders app as its section-1 manual page. The app's description
// is help text (paragraphs, "HEADING:" lines, indented examples): its
// first part becomes DESCRIPTION and each headed part, then each help
// topic (clix.HelpTopic), a section of its own after COMMANDS, followed by ENVIRONMENT (every CMDAI_* variable
// a flag reads, and those that no flag has) and FILES under prefix.
func ManPage(app *cli.App, prefix string) (string, error) {
	intro, sections := splitHelp(app.Description)
	// The help topics (`cmdai help exit-codes`) are sections of the page.
	for _, t := range clix.Topics(app.Commands) {
		_, s := splitHelp(t.Description)
		sections = append(sections, s...)
	}
	doc := *app
	doc.Description = helpToMarkdown(intro)
	body, err := doc.ToMarkdown()
	if err != nil {
		return "", fmt.Errorf("write the manual page: %w", err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "%% %s 1 \"\" \"%s %s\" \"User Commands\"\n\n", app.Name, app.Name, app.Version)
	md.WriteString(body)
	for _, s := range sections {
		fmt.Fprintf(&md, "\n# %s\n\n%s\n", s.title, helpToMarkdown(s.body))
	}
	md.WriteString(environment(app))
	md.WriteString(files(prefix))
	return string(md2man.Render([]byte(md.String()))), nil
}

type helpSection struct{ title, body string }

var headingLine = regexp.MustCompile(`^([A-Z][A-Z ]*[A-Z]):$`)

// splitHelp cuts help text at its "HEADING:" lines.
func splitHelp(text string) (intro string, sections []helpSection) {
	var cur *helpSection
	var introLines []string
	for _, line := range strings.Split(text, "\n") {
		if m := headingLine.FindStringSubmatch(line); m != nil {
			sections = append(sections, helpSection{title: m[1]})
			cur = &sections[len(sections)-1]
			continue
		}
		if cur == nil {
			introLines = append(introLines, line)
		} else {
			cur.body += line + "\n"
		}
	}
	return strings.Join(introLines, "\n"), sections
}

// termLine is a two-column line, "0  success": a term and its meaning.
var termLine = regexp.MustCompile(`^(\S{1,8}) {2,}(\S.*)$`)

// helpToMarkdown turns help text into Markdown: after the common indent
// is taken off, "$ command" lines and lines indented further are kept as
// they are (a code block), two-column lines become a definition list,
// and the rest is prose that man may refill.
func helpToMarkdown(text string) string {
	lines := dedent(strings.Split(strings.Trim(text, "\n"), "\n"))
	var b strings.Builder
	inCode := false
	for _, line := range lines {
		code := strings.HasPrefix(line, "$ ") || strings.HasPrefix(line, " ")
		if code != inCode {
			if !code && strings.TrimSpace(line) == "" {
				continue // a blank line inside a block of examples
			}
			if code {
				b.WriteString("\n```\n")
			} else {
				b.WriteString("```\n")
			}
			inCode = code
		}
		switch m := termLine.FindStringSubmatch(line); {
		case code:
			b.WriteString(line + "\n")
		case m != nil:
			fmt.Fprintf(&b, "\n%s\n: %s\n", mdEscape(m[1]), mdEscape(m[2]))
		default:
			b.WriteString(mdEscape(line) + "\n")
		}
	}
	if inCode {
		b.WriteString("```\n")
	}
	return b.String()
}

func dedent(lines []string) []string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// mdEscape keeps Markdown from reading prose as markup, except for
// `code` spans, which help text uses for commands to type.
func mdEscape(s string) string {
	var b strings.Builder
	inSpan := false
	for i, r := range s {
		switch {
		case r == '`':
			inSpan = !inSpan
		case !inSpan && strings.ContainsRune(`\*_[]<>`, r):
			b.WriteByte('\\')
		case !inSpan && i == 0 && strings.ContainsRune("#+-", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Variables no flag reads, which a user may still need.
var otherEnv = map[string]string{
	"CMDAI_HOME":         "moves every directory cmdai uses (data, cache, configuration) under one root; tests and trials use it",
	"CMDAI_CONFIG":       "the configuration file to read instead of ~/.config/cmdai/config.yaml",
	"CMDAI_ORT_LIB_DIR":  "the directory of the ONNX Runtime library (" + embed.ORTLibName + "), before PREFIX/lib/cmdai",
	"CMDAI_TOOLS":        "a checkout's .tools directory (ONNX Runtime, Chroma, model), for developers",
	"CMDAI_IDLE_TIMEOUT": "deprecated: read as CMDAI_STALL_TIMEOUT (--stall-timeout of the commands that download), with a note; --idle-timeout is serve's time to exit when idle",
	"XDG_DATA_HOME":      "where the index and the installed model live: $XDG_DATA_HOME/cmdai (default ~/.local/share/cmdai)",
	"XDG_CACHE_HOME":     "where caches live: $XDG_CACHE_HOME/cmdai (default ~/.cache/cmdai)",
	"XDG_CONFIG_HOME":    "where the configuration and your own command docs live: $XDG_CONFIG_HOME/cmdai (default ~/.config/cmdai)",
	"XDG_RUNTIME_DIR":    "where cmdai serve puts its socket (cmdai.sock)",
}

// environment is the ENVIRONMENT section: each variable once, sorted,
// with the usage of the flag that reads it (a variable several commands'
// flags read with different meanings points at those flags).
func environment(app *cli.App) string {
	usage := map[string]string{}
	for k, v := range otherEnv {
		usage[k] = v
	}
	fromFlags := map[string]map[string]bool{}
	flagName := map[string]string{}
	var walk func(flags []cli.Flag, cmds []*cli.Command)
	walk = func(flags []cli.Flag, cmds []*cli.Command) {
		for _, fl := range flags {
			df, ok := fl.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			for _, env := range df.GetEnvVars() {
				if fromFlags[env] == nil {
					fromFlags[env], flagName[env] = map[string]bool{}, fl.Names()[0]
				}
				fromFlags[env][df.GetUsage()] = true
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
	for env, usages := range fromFlags {
		for u := range usages {
			usage[env] = fmt.Sprintf("as --%s: %s", flagName[env], u)
		}
		if len(usages) > 1 {
			usage[env] = fmt.Sprintf("as --%s, in each command that has that flag", flagName[env])
		}
	}
	names := make([]string, 0, len(usage))
	for k := range usage {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("\n# ENVIRONMENT\n\nA flag's variable sets its default; the flag wins. An empty variable counts as unset.\n")
	for _, k := range names {
		fmt.Fprintf(&b, "\n%s\n: %s\n", mdEscape(k), mdEscape(usage[k]))
	}
	return b.String()
}

// files is the FILES section: the run-time layout of an installation
// under prefix, then the user's directories.
func files(prefix string) string {
	if prefix == "" {
		prefix = "PREFIX"
	}
	entries := [][2]string{
		{prefix + "/bin/cmdai", "the program"},
		{prefix + "/lib/cmdai/" + embed.ORTLibName, "ONNX Runtime, which cmdai loads to embed text"},
		{prefix + "/lib/cmdai/chroma/bin/chroma", fmt.Sprintf("the Chroma server (chromadb %s) cmdai starts, reachable by you alone, when no --chroma-url is given; without it, a `chroma` on PATH (`pipx install chromadb==%s`)", chroma.ChromaVersion, chroma.ChromaVersion)},
		{prefix + "/share/cmdai/models/all-MiniLM-L6-v2/", "the embedding model as shipped, used by every user who has none of their own (`cmdai model import` gives a user their own)"},
		{"~/.local/share/cmdai/", "the user's data: the index (the private Chroma server's data) and a model the user imported or pulled ($XDG_DATA_HOME/cmdai; CMDAI_HOME moves it)"},
		{"~/.cache/cmdai/", "caches: embedding vectors and downloads ($XDG_CACHE_HOME/cmdai); safe to delete"},
		{"~/.config/cmdai/", "config.yaml, and your own command docs and hints in commands/ and hints/ ($XDG_CONFIG_HOME/cmdai)"},
	}
	var b strings.Builder
	b.WriteString("\n# FILES\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "\n%s\n: %s\n", mdEscape(e[0]), mdEscape(e[1]))
	}
	return b.String()
}
