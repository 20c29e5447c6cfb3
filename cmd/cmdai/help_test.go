package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
)

// eachCommand calls fn with every command of app, by its full name.
func eachCommand(app *cli.App, fn func(path string, c *cli.Command)) {
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.Name)
			fn(path, c)
			walk(path, c.Subcommands)
		}
	}
	walk("cmdai", app.Commands)
}

// placeholder is a flag's help placeholder: a backticked word in its Usage
// (urfave/cli prints it after the flag's name), which must read as one
// (N, DIR, URL), not as words of the sentence.
var placeholder = regexp.MustCompile("^[A-Z0-9.:_-]*[A-Z][A-Z0-9.:_-]*$")

// TestFlagHelpHasNoArtefacts walks every command's flags: a backtick in a
// Usage is a placeholder (one pair, an upper-case word) and never in a
// flag that takes no value (urfave/cli would print the quoted words after
// the flag's name: "--no-serve cmdai serve"); a flag that takes a value
// names it (never the library's "value").
func TestFlagHelpHasNoArtefacts(t *testing.T) {
	io, _, _ := testIO()
	app := newApp(cmdutil.NewFactory(io, os.Getenv, ""))
	check := func(path string, flags []cli.Flag) {
		for _, fl := range flags {
			df, ok := fl.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			name, usage := fl.Names()[0], df.GetUsage()
			parts := strings.Split(usage, "`")
			switch {
			case len(parts) == 1:
			case !df.TakesValue():
				t.Errorf("%s --%s takes no value but its usage has backticks (printed as a placeholder): %q", path, name, usage)
			case len(parts) != 3 || !placeholder.MatchString(parts[1]):
				t.Errorf("%s --%s: usage %q: backticks must hold one upper-case placeholder (N, DIR, HOST:PORT), not words", path, name, usage)
			}
			if df.TakesValue() && regexp.MustCompile(`^--?`+regexp.QuoteMeta(name)+`(, [^ ]+)* value\s`).MatchString(fl.String()) {
				t.Errorf("%s --%s: its help shows the placeholder \"value\": name it with backticks in its usage\n%s", path, name, fl.String())
			}
		}
	}
	check("cmdai", app.Flags)
	eachCommand(app, func(path string, c *cli.Command) { check(path, c.Flags) })
}

// TestAppHelp: the top-level help is short, the examples name the main
// verbs, the commands come before the flags and the exit codes and the
// configuration are topics of their own, named in one line.
func TestAppHelp(t *testing.T) {
	code, out, errOut := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"EXAMPLES:", "cmdai index init", `cmdai search "`, "cmdai show ", "COMMANDS:", "cmdai help exit-codes", "cmdai help config"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help has no %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"EXIT CODES:", "CONFIGURATION:", "exit-codes   ", "--version, -v"} {
		if strings.Contains(out, not) {
			t.Errorf("--help has %q:\n%s", not, out)
		}
	}
	if i, j := strings.Index(out, "COMMANDS:"), strings.Index(out, "GLOBAL OPTIONS:"); i < 0 || j < i {
		t.Errorf("the commands are not listed before the flags:\n%s", out)
	}
	if i := strings.Index(out, "COMMANDS:"); strings.Count(out[:i], "\n") > 20 {
		t.Errorf("the commands start on line %d (at most 20):\n%s", strings.Count(out[:i], "\n"), out)
	}
	for topic, want := range map[string]string{"exit-codes": cmdutil.ExitCodesHelp, "config": configHelp} {
		for _, args := range [][]string{{"help", topic}, {topic}, {topic, "--help"}} {
			code, out, errOut := runCLI(t, args...)
			if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(want) {
				t.Errorf("cmdai %s: exit %d\n%s\nwant:\n%s\n%s", strings.Join(args, " "), code, out, want, errOut)
			}
		}
	}
}

// TestCommandHelpGroupsSharedFlags: a command's own flags come first, the
// shared ones under their headings after them.
func TestCommandHelpGroupsSharedFlags(t *testing.T) {
	code, out, errOut := runCLI(t, "index", "query", "--help")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	own, chroma, model := strings.Index(out, "\n   --json"), strings.Index(out, "\nCHROMA OPTIONS:\n   --chroma-url"), strings.Index(out, "\nMODEL OPTIONS:")
	if own < 0 || chroma < own || model < own {
		t.Errorf("own flags at %d, CHROMA OPTIONS at %d, MODEL OPTIONS at %d:\n%s", own, chroma, model, out)
	}
	if strings.Count(out, "\n   --chroma-url ") != 1 || strings.Index(out, "\n   --chroma-") < chroma {
		t.Errorf("a --chroma-* flag outside its heading:\n%s", out)
	}
	// every command with the Chroma flags lists them under the heading
	io, _, _ := testIO()
	app := newApp(cmdutil.NewFactory(io, os.Getenv, ""))
	eachCommand(app, func(path string, c *cli.Command) {
		for _, fl := range c.Flags {
			if cf, ok := fl.(cli.CategorizableFlag); ok && strings.HasPrefix(fl.Names()[0], "chroma-") && cf.GetCategory() != cmdutil.ChromaCategory {
				t.Errorf("%s --%s is not under %s", path, fl.Names()[0], cmdutil.ChromaCategory)
			}
		}
		if c.Category == clix.TopicCategory && !c.Hidden {
			t.Errorf("help topic %s is listed as a command", path)
		}
	})
}

// TestVersionFlag: the version is --version; -v, which printed it before
// it meant --verbose, still does with a deprecation note, and is not listed.
func TestVersionFlag(t *testing.T) {
	code, out, errOut := runCLI(t, "--version")
	if code != 0 || !strings.Contains(out, "cmdai version") || errOut != "" {
		t.Errorf("--version: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "-v")
	if code != 0 || !strings.Contains(out, "cmdai version") || !strings.Contains(errOut, "deprecated") || !strings.Contains(errOut, "--version") {
		t.Errorf("-v: exit %d %q %q", code, out, errOut)
	}
	if _, out, _ := runCLI(t, "--help"); strings.Contains(out, " -v") {
		t.Errorf("--help lists -v:\n%s", out)
	}
	if _, out, _ := runCLI(t, "index", "init", "--help"); !strings.Contains(out, "--verbose, -v") {
		t.Errorf("index init --help has no -v for --verbose:\n%s", out)
	}
}

// TestOldSpellingsFromTheConfigFile: the file's old key idle-timeout still
// sets --stall-timeout, with the note, and yields to the command line.
func TestOldSpellingsFromTheConfigFile(t *testing.T) {
	withConfigFile(t, "idle-timeout: 0s\n")
	t.Setenv("CMDAI_STALL_TIMEOUT", "")
	os.Unsetenv("CMDAI_STALL_TIMEOUT")
	mirror := t.TempDir()
	code, _, errOut := runCLI(t, "index", "download", "debian-12", "--base-url", mirror)
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--stall-timeout must be more than 0") || !strings.Contains(errOut, "config key idle-timeout) is deprecated") {
		t.Errorf("file idle-timeout: 0s: exit %d, want %d with the note\n%s", code, cmdutil.ExitUsage, errOut)
	}
	code, _, errOut = runCLI(t, "index", "download", "debian-12", "--base-url", mirror, "--stall-timeout", "1m", "--dir", t.TempDir())
	if code == cmdutil.ExitUsage || strings.Contains(errOut, "deprecated") {
		t.Errorf("--stall-timeout over the file's idle-timeout: exit %d\n%s", code, errOut)
	}
	// help lists neither old spelling
	for _, args := range [][]string{{"index", "download", "--help"}, {"index", "import", "--help"}, {"model", "pull", "--help"}} {
		if _, out, _ := runCLI(t, args...); strings.Contains(out, "--verify") || strings.Contains(out, "--idle-timeout") || strings.Contains(out, "IDLE_TIMEOUT") {
			t.Errorf("%v lists an old spelling:\n%s", args, out)
		}
	}
}
