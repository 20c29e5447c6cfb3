package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/ship/release"
)

// shellCompleters complete a command line (its words, the last the one
// at the cursor, "" for a new one) as each shell does at <TAB>, with the
// script `cmdai completion SHELL` prints, and return the candidates.
func shellCompleters(t *testing.T) map[string]func(words ...string) []string {
	t.Helper()
	fakeCmdaiOnPath(t)
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		scripts[sh] = completionScript(t, sh)
	}
	quote := func(words []string) string {
		var q []string
		for _, w := range words {
			q = append(q, "'"+w+"'")
		}
		return strings.Join(q, " ")
	}
	lines := func(t *testing.T, what string, out []byte, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l = strings.SplitN(l, "\t", 2)[0]; l != "" {
				got = append(got, l)
			}
		}
		return got
	}
	return map[string]func(words ...string) []string{
		// bash: the script's function with COMP_WORDS and COMP_CWORD set,
		// COMPREPLY read
		"bash": func(words ...string) []string {
			prog := `source "$1"
COMP_WORDS=(` + quote(words) + `); COMP_CWORD=` + strconv.Itoa(len(words)-1) + `
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
_cmdai_complete cmdai "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"`
			out, err := exec.Command("bash", "--norc", "--noprofile", "-c", prog, "bash", scripts["bash"]).CombinedOutput()
			return lines(t, "bash", out, err)
		},
		// zsh: compinit loaded, compadd captured (it prints what it is
		// given; zsh's own matching against the word is not run, so
		// every candidate given is printed)
		"zsh": func(words ...string) []string {
			prog := `autoload -Uz compinit; compinit -u -D
compadd() { print -l -- "${(@P)2}"; }; _files() { print _files; }
source $1; words=(` + quote(words) + `); CURRENT=${#words}; _cmdai`
			out, err := exec.Command("zsh", "-f", "-c", prog, "zsh", scripts["zsh"]).CombinedOutput()
			return lines(t, "zsh", out, err)
		},
		// fish: complete -C, fish's own matching included
		"fish": func(words ...string) []string {
			out, err := exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, scripts["fish"], strings.Join(words, " ")).CombinedOutput()
			return lines(t, "fish", out, err)
		},
	}
}

// TestCompletionValuesInEachShell drives bash, zsh and fish at <TAB>
// after the flags with known values and the commands whose argument is
// known: the values, never the flags (but where a flag is typed), and
// no command run (explain's candidates are PATH's executables: one that
// would leave a mark if run).
func TestCompletionValuesInEachShell(t *testing.T) {
	tools := t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(tools, "zzcmdai-tool"), []byte("#!/bin/sh\ntouch '"+mark+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+tools)
	shells := shellCompleters(t)
	modes := []string{"learned", "semantic", "keyword", "hybrid", "fused"}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		complete := shells[sh]
		for _, tc := range []struct {
			words    []string
			want     []string // all offered
			only     bool     // and nothing else
			filtered bool     // only where the shell matches the word itself (not the zsh stub)
		}{
			{words: []string{"cmdai", "index", "query", "--mode", ""}, want: modes, only: true},
			{words: []string{"cmdai", "index", "query", "--mode", "sem"}, want: []string{"semantic"}, only: true, filtered: true},
			{words: []string{"cmdai", "index", "query", "--mode"}, want: []string{"--model-dir", "--model-variant"}},
			{words: []string{"cmdai", "index", "eval", "--mode", ""}, want: modes},
			{words: []string{"cmdai", "index", "init", "--model-variant", ""}, want: []string{"int8", "fp32"}, only: true},
			{words: []string{"cmdai", "index", "query", "--embed-backend", ""}, want: []string{"ort", "go"}, only: true},
			{words: []string{"cmdai", "index", "query", "--distro", ""}, want: release.PublishedIDs},
			{words: []string{"cmdai", "index", "download", ""}, want: release.PublishedIDs},
			{words: []string{"cmdai", "index", "download", "deb"}, want: []string{"debian-12", "debian-13"}, only: true, filtered: true},
			{words: []string{"cmdai", "explain", "zzcmdai-t"}, want: []string{"zzcmdai-tool"}, only: true, filtered: true},
			{words: []string{"cmdai", "explain", ""}, want: []string{"zzcmdai-tool", "ls"}},
			{words: []string{"cmdai", "help", ""}, want: []string{"index", "explain", "exit-codes", "config"}},
		} {
			if tc.filtered && sh == "zsh" {
				tc.only = false
			}
			got := complete(tc.words...)
			what := sh + ": " + strings.Join(tc.words, " ") + "<TAB>"
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s offers no %s: %q", what, w, got)
				}
			}
			if tc.only && len(got) != len(tc.want) {
				t.Errorf("%s offers %q, want only %q", what, got, tc.want)
			}
			if last := tc.words[len(tc.words)-1]; !strings.HasPrefix(last, "-") {
				for _, g := range got {
					if strings.HasPrefix(g, "-") {
						t.Errorf("%s offers the flag %s where a value goes: %q", what, g, got)
						break
					}
				}
			}
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("completing explain ran the command being completed")
	}
}
