package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/testmode"
)

// fakeCmdaiOnPath puts a `cmdai` on PATH that runs this test binary as the
// CLI (TestMain, CMDAI_TEST_CLI), for the shells' completion functions to
// call as they call the installed one.
func fakeCmdaiOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The arguments go as arguments too: urfave/cli reads os.Args to
	// complete a flag.
	wrapper := "#!/bin/sh\nCMDAI_TEST_CLI=\"$(printf '%s\\n' \"$@\")\" exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "cmdai"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, errOut := runCLI(t, "completion", shell)
	if code != 0 || out == "" {
		t.Fatalf("completion %s: exit %d, %d bytes\n%s", shell, code, len(out), errOut)
	}
	path := filepath.Join(t.TempDir(), "cmdai."+shell)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// indexSubcommands are the names `cmdai index <TAB>` must offer: from the
// command tree, not a list kept here.
func indexSubcommands(t *testing.T) []string {
	t.Helper()
	io, _, _ := testIO()
	app := newApp(cmdutil.NewFactory(io, os.Getenv, ""))
	for _, c := range app.Commands {
		if c.Name == "index" {
			var names []string
			for _, s := range c.Subcommands {
				names = append(names, s.Name)
			}
			return names
		}
	}
	t.Fatal("no index command")
	return nil
}

// TestBashCompletion loads the bash script and completes as bash would at
// <TAB>: without the bash-completion package (its own word splitting)
// and with it (_init_completion).
func TestBashCompletion(t *testing.T) {
	fakeCmdaiOnPath(t)
	script := completionScript(t, "bash")
	complete := func(t *testing.T, preamble string, words ...string) []string {
		t.Helper()
		line := strings.Join(words, " ")
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := preamble + `
source "$1"
COMP_WORDS=(` + strings.Join(quoted, " ") + `); COMP_CWORD=` + strconv.Itoa(len(words)-1) + `
COMP_LINE='` + line + `'; COMP_POINT=${#COMP_LINE}
_cmdai_complete cmdai "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"`
		out, err := exec.Command("bash", "--norc", "--noprofile", "-c", prog, "bash", script).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	check := func(t *testing.T, preamble string) {
		if got := complete(t, preamble, "cmdai", "ind"); !slices.Equal(got, []string{"index"}) {
			t.Errorf("cmdai ind<TAB> offers %q, want index", got)
		}
		got := complete(t, preamble, "cmdai", "index", "")
		for _, want := range indexSubcommands(t) {
			if !slices.Contains(got, want) {
				t.Errorf("cmdai index <TAB> offers %q: no %s", got, want)
			}
		}
		if got := complete(t, preamble, "cmdai", "index", "query", "--chroma-u"); !slices.Equal(got, []string{"--chroma-url"}) {
			t.Errorf("cmdai index query --chroma-u<TAB> offers %q, want --chroma-url", got)
		}
		if got := complete(t, preamble, "cmdai", "completion", "f"); !slices.Equal(got, []string{"fish"}) {
			t.Errorf("cmdai completion f<TAB> offers %q, want fish", got)
		}
	}
	out, err := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1" && complete -p cmdai`, "bash", script).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-F _cmdai_complete cmdai") {
		t.Errorf("the script does not register its function for cmdai: %v\n%s", err, out)
	}
	t.Run("plain", func(t *testing.T) { check(t, "") })
	t.Run("bash-completion", func(t *testing.T) {
		testmode.Heavy(t, "the bash-completion package")
		const lib = "/usr/share/bash-completion/bash_completion"
		if _, err := os.Stat(lib); err != nil {
			t.Fatalf("%v (the bash-completion package: `make test-deps`)", err)
		}
		check(t, "source "+lib+"\ndeclare -F _init_completion >/dev/null || exit 3")
	})
}

// TestZshAndFishCompletion checks the zsh script (zsh -n, and its
// function with compadd stubbed) and completes with fish as at <TAB>
// (complete -C).
func TestZshAndFishCompletion(t *testing.T) {
	testmode.Heavy(t, "zsh and fish")
	fakeCmdaiOnPath(t)
	zsh := completionScript(t, "zsh")
	if out, err := exec.Command("zsh", "-n", zsh).CombinedOutput(); err != nil {
		t.Errorf("zsh -n: %v\n%s (zsh: `make test-deps`)", err, out)
	}
	// Outside compinit, words and CURRENT are plain variables and compadd
	// a stub that prints what it is given: the function's own logic runs.
	out, err := exec.Command("zsh", "-f", "-c", `compdef() { :; }; compadd() { print -l -- "${(@P)2}"; }
source $1; words=(cmdai index ""); CURRENT=3; _cmdai`, "zsh", zsh).CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	for _, want := range indexSubcommands(t) {
		if !slices.Contains(strings.Fields(string(out)), want) {
			t.Errorf("zsh: cmdai index <TAB> offers %q: no %s", out, want)
		}
	}
	fish := completionScript(t, "fish")
	if out, err := exec.Command("fish", "-n", fish).CombinedOutput(); err != nil {
		t.Fatalf("fish -n: %v\n%s (fish: `make test-deps`)", err, out)
	}
	out, err = exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C "cmdai index "`, fish).CombinedOutput()
	if err != nil {
		t.Fatalf("fish: %v\n%s", err, out)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		got = append(got, strings.SplitN(l, "\t", 2)[0])
	}
	for _, want := range indexSubcommands(t) {
		if !slices.Contains(got, want) {
			t.Errorf("fish: cmdai index <TAB> offers %q: no %s", got, want)
		}
	}
}

func TestCompletionNeedsAKnownShell(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, _, errOut := runCLI(t, args...); code != cmdutil.ExitUsage || !strings.Contains(errOut, "completion") {
			t.Errorf("cmdai %s: exit %d, want %d with the way out\n%s", strings.Join(args, " "), code, cmdutil.ExitUsage, errOut)
		}
	}
}

// TestManPage checks the generated cmdai(1): every command, the exit
// codes, every CMDAI_* setting and the installed files under --prefix;
// then that man renders it.
func TestManPage(t *testing.T) {
	code, page, errOut := runCLI(t, "__man", "--prefix", "/opt/cmdai")
	if code != 0 {
		t.Fatalf("__man: exit %d\n%s", code, errOut)
	}
	if !strings.HasPrefix(page, ".nh\n.TH cmdai 1 ") {
		t.Errorf("no .TH cmdai 1 header:\n%.200s", page)
	}
	io, _, _ := testIO()
	app := newApp(cmdutil.NewFactory(io, os.Getenv, ""))
	for _, c := range app.Commands {
		if !c.Hidden && !strings.Contains(page, "\n.SH "+c.Name+"\n") {
			t.Errorf("no section for command %s", c.Name)
		}
	}
	if strings.Contains(page, "__man") {
		t.Error("the page lists the hidden __man command")
	}
	for _, want := range []string{".SH EXIT CODES", ".SH ENVIRONMENT", ".SH FILES", "/opt/cmdai/lib/cmdai/libonnxruntime.so", "/opt/cmdai/lib/cmdai/chroma/bin/chroma", "CMDAI_ORT_LIB_DIR"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	for _, s := range config.Settings {
		if !strings.Contains(page, "\n"+strings.ReplaceAll(s.Env, "_", `\_`)+"\n") && !strings.Contains(page, "\n"+s.Env+"\n") {
			t.Errorf("ENVIRONMENT has no %s", s.Env)
		}
	}
	exitLine := regexp.MustCompile(`(?m)^   (\d+)  (.*)$`)
	for _, m := range exitLine.FindAllStringSubmatch(cmdutil.ExitCodesHelp, -1) {
		if !strings.Contains(page, "\n.TP\n"+m[1]+"\n") {
			t.Errorf("EXIT CODES has no code %s (%s)", m[1], m[2])
		}
	}

	testmode.Heavy(t, "man-db")
	path := filepath.Join(t.TempDir(), "cmdai.1")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "-l", path)
	cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("man -l: %v (man-db: `make test-deps`)", err)
	}
	text := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{"EXIT CODES", "6 the index is in use by another cmdai", "cmdai completion bash|zsh|fish", "CMDAI_CHROMA_URL"} {
		if !strings.Contains(text, want) {
			t.Errorf("man renders no %q", want)
		}
	}
}

// TestBashCompletionExpandsNothing: the bash script filters what cmdai
// offers as plain strings: a candidate holding $(...) or `...` (an
// executable so named on PATH) is never run (before: compgen -W ran it
// at <TAB>).
func TestBashCompletionExpandsNothing(t *testing.T) {
	script := completionScript(t, "bash")
	dir := t.TempDir()
	fake := filepath.Join(dir, "fakecmdai")
	marker := filepath.Join(dir, "PWNED")
	body := "#!/bin/sh\nprintf '%s\\n' 'gitk' '$(touch " + marker + ")' '`touch " + marker + "`' 'git'\n"
	if err := os.WriteFile(fake, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	prog := `source "$1"
COMP_WORDS=("$2" explain 'gi'); COMP_CWORD=2
COMP_LINE="$2 explain gi"; COMP_POINT=${#COMP_LINE}
_cmdai_complete cmdai gi explain
printf '%s\n' "${COMPREPLY[@]}"
COMP_WORDS=("$2" explain ''); COMP_CWORD=2
_cmdai_complete cmdai '' explain
printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog, "bash", script, fake)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a candidate ran at <TAB>:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || lines[0] != "gitk" || lines[1] != "git" {
		t.Errorf("gi<TAB> offers %q; want gitk and git first", lines)
	}
}
