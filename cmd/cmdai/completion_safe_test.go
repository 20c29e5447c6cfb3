package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/completioncmd"
	"github.com/cmdai/cmdai/internal/testmode"
)

// completionSandbox is an empty working directory, home, CMDAI_HOME and
// TMPDIR, and a CMDAI_CHROMA_BIN that leaves a mark when anything starts
// it: what a <TAB> must leave as it found it.
type completionSandbox struct {
	dirs   []string
	marker string
	env    []string
}

func newCompletionSandbox(t *testing.T) *completionSandbox {
	t.Helper()
	root := t.TempDir()
	s := &completionSandbox{marker: filepath.Join(root, "chroma-started")}
	for _, d := range []string{"cwd", "home", "cmdai-home", "tmp", "xdg-config", "xdg-data", "xdg-cache", "xdg-state"} {
		p := filepath.Join(root, d)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		s.dirs = append(s.dirs, p)
	}
	bin := filepath.Join(root, "chroma")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\" >> '"+s.marker+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.dirs[1], "CMDAI_HOME=" + s.dirs[2],
		"TMPDIR=" + s.dirs[3], "XDG_CONFIG_HOME=" + s.dirs[4], "XDG_DATA_HOME=" + s.dirs[5],
		"XDG_CACHE_HOME=" + s.dirs[6], "XDG_STATE_HOME=" + s.dirs[7], "CMDAI_CHROMA_BIN=" + bin, "LANG=C.UTF-8",
		"CMDAI_TEST_MODEL_DIR=" + os.Getenv("CMDAI_TEST_MODEL_DIR"), "CMDAI_ORT_LIB_DIR=" + os.Getenv("CMDAI_ORT_LIB_DIR")}
	return s
}

// run runs name args in the sandbox's working directory.
func (s *completionSandbox) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = s.dirs[0], s.env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Errorf("%s %q: still running after a minute", name, args)
	}
	_ = err // a shell's exit status is not what is checked here
	return string(out)
}

// untouched fails the test if anything ran or wrote, then clears the
// sandbox for the next case.
func (s *completionSandbox) untouched(t *testing.T, what string) {
	t.Helper()
	if b, err := os.ReadFile(s.marker); err == nil {
		t.Errorf("%s started Chroma (%s)", what, strings.TrimSpace(string(b)))
		os.Remove(s.marker)
	}
	for _, d := range s.dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() == "fish" && strings.Contains(filepath.Base(d), "xdg") {
				continue // fish's own history and settings
			}
			t.Errorf("%s wrote %s", what, filepath.Join(d, e.Name()))
			os.RemoveAll(filepath.Join(d, e.Name()))
		}
	}
}

// completionCases are command lines completed at their last word: the
// cursor on "--", a flag, a flag's value, an argument, a word after "--".
var completionCases = [][]string{
	{"index", "export", "--"},
	{"index", "export", "--dis"},
	{"index", "export", "--distro", ""},
	{"index", "export", ""},
	{"index", "export", "out", ""},
	{"index", "export", "--", ""},
	{"index", "query", "--"},
	{"index", "query", "--chroma-u"},
	{"index", "query", "--chroma-url", ""},
	{"index", "query", "find", ""},
	{"index", "query", "--", "find"},
	{"explain", "--"},
	{"explain", "--j"},
	{"explain", "ls", ""},
	{"explain", "--", "ls"},
	{"index", "init", "--"},
	{"index", "init", "--com"},
	{"index", "init", "--command", ""},
	{"index", "init", "--", ""},
	{"serve", "--"},
	{"mcp", "--"},
}

// TestCompletionRunsNothing drives bash's, zsh's and fish's completion
// of cmdai at every kind of cursor position in an empty directory with
// an empty home: no command runs (no Chroma starts), nothing is written,
// and the flags are still offered.
func TestCompletionRunsNothing(t *testing.T) {
	fakeCmdaiOnPath(t)
	scripts := map[string]string{}
	for _, sh := range completioncmd.Shells {
		scripts[sh] = completionScript(t, sh)
	}
	s := newCompletionSandbox(t)
	quote := func(words []string) string {
		var q []string
		for _, w := range words {
			q = append(q, "'"+w+"'")
		}
		return strings.Join(q, " ")
	}
	shells := map[string]func(words []string) string{
		"bash": func(words []string) string {
			prog := `source "$1"
COMP_WORDS=(` + quote(words) + `); COMP_CWORD=` + strconv.Itoa(len(words)-1) + `
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
_cmdai_complete cmdai "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"`
			return s.run(t, "bash", "--norc", "--noprofile", "-c", prog, "bash", scripts["bash"])
		},
		"zsh": func(words []string) string {
			prog := `compdef() { :; }; compadd() { print -l -- "${(@P)2}"; }; _files() { print _files; }
source $1; words=(` + quote(words) + `); CURRENT=${#words}; _cmdai`
			return s.run(t, "zsh", "-f", "-c", prog, "zsh", scripts["zsh"])
		},
		"fish": func(words []string) string {
			return s.run(t, "fish", "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, scripts["fish"], strings.Join(words, " "))
		},
	}
	offers := func(out, want string) bool {
		for _, l := range strings.Split(out, "\n") {
			if strings.SplitN(l, "\t", 2)[0] == want {
				return true
			}
		}
		return false
	}
	for _, sh := range completioncmd.Shells {
		for _, c := range completionCases {
			words := append([]string{"cmdai"}, c...)
			what := sh + ": " + strings.Join(words, " ") + "<TAB>"
			out := shells[sh](words)
			s.untouched(t, what)
			switch strings.Join(c, " ") {
			case "index export --", "index export --dis":
				if !offers(out, "--distro") {
					t.Errorf("%s offers no --distro:\n%s", what, out)
				}
			case "index query --chroma-u":
				if !offers(out, "--chroma-url") {
					t.Errorf("%s offers no --chroma-url:\n%s", what, out)
				}
			case "index init --com":
				if !offers(out, "--command") {
					t.Errorf("%s offers no --command:\n%s", what, out)
				}
			}
		}
	}
	// The binary itself, asked as any script (an older one, another
	// tool's) may ask: the marker after "--", or not last.
	for _, args := range [][]string{
		{"index", "export", "--", completioncmd.CompletionMarker},
		{"index", "export", completioncmd.CompletionMarker, "out.tgz"},
		{"index", "query", "--", "find files", completioncmd.CompletionMarker},
		{"index", "query", completioncmd.CompletionMarker, "--", "find files"},
		{"explain", "--", completioncmd.CompletionMarker},
		{"index", "init", "--", completioncmd.CompletionMarker},
		{"index", "init", "--command", completioncmd.CompletionMarker},
		{completioncmd.CompletionMarker, "index", "export"},
	} {
		out := s.run(t, "cmdai", args...)
		s.untouched(t, "cmdai "+strings.Join(args, " "))
		if strings.Contains(out, "cmdai:") {
			t.Errorf("cmdai %s answered an error, not candidates:\n%s", strings.Join(args, " "), out)
		}
	}
}

// TestCompleteOffers: the candidates the binary prints for a request,
// the words walked without running anything.
func TestCompleteOffers(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // all offered
		none bool     // nothing offered
	}{
		{args: nil, want: []string{"index", "explain", "completion"}},
		{args: []string{"index"}, want: indexSubcommands(t)},
		{args: []string{"index", "export", "--"}, want: []string{"--distro", "--chroma-url", "--help"}},
		{args: []string{"index", "export", "-"}, want: []string{"--distro", "-h"}},
		{args: []string{"index", "init", "--command", "ls", "-"}, want: []string{"--force", "-j"}},
		{args: []string{"--batch-mode", "index", "--"}, want: []string{"--help"}},
		{args: []string{"completion"}, want: []string{"bash", "zsh", "fish"}},
		{args: []string{"index", "export", "--distro"}, want: []string{"debian-12", "ubuntu-24.04"}}, // the known ids
		{args: []string{"index", "export", "--chroma-url"}, none: true},                              // a URL: none known
		{args: []string{"explain", "ls"}, none: true},
	} {
		args := append(append([]string{"cmdai"}, tc.args...), completioncmd.CompletionMarker)
		code, out, errOut := runCLI(t, args[1:]...)
		got := strings.Fields(out)
		if code != 0 || errOut != "" {
			t.Errorf("%q: exit %d\n%s", tc.args, code, errOut)
		}
		if tc.none && len(got) > 0 {
			t.Errorf("%q offers %q, want nothing (the shell's own candidates)", tc.args, got)
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q offers %q: no %s", tc.args, got, w)
			}
		}
	}
}

// zptyDriver types each line into an interactive shell on a terminal
// (zsh's zpty), presses <TAB> twice, and prints what the terminal shows;
// ^U clears the line before the next.
const zptyDriver = `zmodload zsh/zpty
zpty sh "$1"; shift
zpty -w sh "$1"; shift
drain() { local chunk; sleep ${2:-1}; while zpty -r -t sh chunk; do print -rn -- "$chunk"; done; }
drain
for line in "$@"; do
	zpty -w -n sh "$line"$'\t\t'
	drain
	zpty -w -n sh $'\x15'
done
zpty -w sh exit
drain
zpty -d sh`

// TestCompletionAtARealTerminal: bash's readline and zsh's compsys
// (compinit), each interactive on a terminal, complete cmdai at <TAB>
// as a user's shell does: the flags are listed, and nothing ran or was
// written.
func TestCompletionAtARealTerminal(t *testing.T) {
	testmode.Heavy(t, "zsh and bash on a terminal")
	fakeCmdaiOnPath(t)
	s := newCompletionSandbox(t)
	s.env = append(s.env, "HISTFILE=", "TERM=dumb", "PS1=$ ")
	fpath := t.TempDir()
	zsh, err := os.ReadFile(completionScript(t, "zsh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fpath, "_cmdai"), zsh, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []string{"cmdai index export --", "cmdai index export -- ", "cmdai index export --distro ",
		"cmdai index export ", "cmdai index query --", "cmdai index query -- fi", "cmdai explain --",
		"cmdai explain -- ls", "cmdai index init --", "cmdai index init --command "}
	for shell, setup := range map[string][2]string{
		"bash": {"bash --norc --noprofile -i", "source '" + completionScript(t, "bash") + "'; bind 'set completion-query-items 1000'; bind 'set page-completions off'"},
		"zsh":  {"zsh -f -i", "fpath=('" + fpath + "' $fpath); autoload -Uz compinit; compinit -u -D; LISTMAX=1000"},
	} {
		out := s.run(t, "zsh", append([]string{"-f", "-c", zptyDriver, "zsh", setup[0], setup[1]}, lines...)...)
		s.untouched(t, shell+" at a terminal")
		for _, want := range []string{"--distro", "--chroma-url", "--command"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s at a terminal lists no %s:\n%s", shell, want, out)
			}
		}
	}
}
