package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/testnet"
)

// withConfigFile makes a CMDAI_HOME whose config root holds body as
// config.yaml, and clears the CMDAI_* variables the tests set.
func withConfigFile(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CMDAI_HOME", home)
	for _, k := range []string{"CMDAI_CONFIG", "CMDAI_CHROMA_URL", "CMDAI_DISTRO"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	path := filepath.Join(home, "config", config.YAMLName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigFilePrecedence: flag > CMDAI_* env > config file. A closed
// port makes the error name the URL that won, with no server needed.
func TestConfigFilePrecedence(t *testing.T) {
	fileURL, envURL, flagURL := "http://"+testnet.ClosedPort(t), "http://"+testnet.ClosedPort(t), "http://"+testnet.ClosedPort(t)
	withConfigFile(t, "chroma-url: "+fileURL+"\n")
	check := func(what, want string, args ...string) {
		t.Helper()
		code, _, stderr := runCLI(t, args...)
		if code != cmdutil.ExitUnreachable || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, want %d naming %s:\n%s", what, code, cmdutil.ExitUnreachable, want, stderr)
		}
	}
	check("file only", fileURL, "index", "status")
	t.Setenv("CMDAI_CHROMA_URL", envURL)
	check("env over file", envURL, "index", "status")
	check("flag over env and file", flagURL, "index", "status", "--chroma-url", flagURL)
}

// TestConfigFileIsNotTheCommandLine: the file's distro is a default, as
// CMDAI_DISTRO is, which --all overrides; --distro on the command line
// with --all is a usage error. Both get past the checks to Chroma (here a
// closed port) only when the file's value is not taken for a flag.
func TestConfigFileIsNotTheCommandLine(t *testing.T) {
	url := "http://" + testnet.ClosedPort(t)
	withConfigFile(t, "distro: debian-12\nchroma-url: "+url+"\n")
	if code, _, stderr := runCLI(t, "index", "clear", "--all", "--confirm"); code != cmdutil.ExitUnreachable || !strings.Contains(stderr, url) {
		t.Errorf("file distro with --all: exit %d, want %d (Chroma reached for):\n%s", code, cmdutil.ExitUnreachable, stderr)
	}
	if code, _, stderr := runCLI(t, "index", "clear", "--all", "--confirm", "--distro", "debian-12"); code != cmdutil.ExitUsage {
		t.Errorf("--distro with --all: exit %d, want %d:\n%s", code, cmdutil.ExitUsage, stderr)
	}
}

// TestConfigFileErrors: a file with a mistake fails the command with
// exit 2 and a message naming the file and the key, never silently;
// help is still shown.
func TestConfigFileErrors(t *testing.T) {
	path := withConfigFile(t, "chroma-url: http://127.0.0.1:1\nparallel: four\n")
	for _, args := range [][]string{{"index", "status"}, {"index", "docs", "new", "mytool"}, {"model", "status"}} {
		code, _, stderr := runCLI(t, args...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, path+":2: parallel: wants a whole number") {
			t.Errorf("%v: exit %d, want %d naming %s:\n%s", args, code, cmdutil.ExitUsage, path, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "commands", "mytool.md")); err == nil {
		t.Error("index docs new wrote a doc despite the broken configuration")
	}
	for _, args := range [][]string{{"--help"}, {"index", "status", "--help"}} {
		if code, stdout, _ := runCLI(t, args...); code != cmdutil.ExitOK || !strings.Contains(stdout, "USAGE") {
			t.Errorf("%v with a broken file: exit %d, no help:\n%s", args, code, stdout)
		}
	}
	// documented in its help topic, read with the broken file there
	code, stdout, _ := runCLI(t, "help", "config")
	if code != cmdutil.ExitOK || !strings.Contains(stdout, "CONFIGURATION:") || !strings.Contains(stdout, "config.yaml") {
		t.Errorf("cmdai help config: exit %d, does not document the configuration file:\n%s", code, stdout)
	}
	if _, stdout, _ := runCLI(t, "--help"); !strings.Contains(stdout, "cmdai help config") {
		t.Errorf("cmdai --help does not say where the configuration is documented:\n%s", stdout)
	}
}

// TestConfigFileTOMLIsRefused: a user whose settings are in config.toml
// (read until cmdai kept one format) gets a usage error naming it and the
// conversion, never the defaults in silence; help is still shown.
func TestConfigFileTOMLIsRefused(t *testing.T) {
	yamlPath := withConfigFile(t, "")
	if err := os.Remove(yamlPath); err != nil {
		t.Fatal(err)
	}
	tomlPath := filepath.Join(filepath.Dir(yamlPath), config.TOMLName)
	if err := os.WriteFile(tomlPath, []byte("chroma-url = \"http://127.0.0.1:1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "index", "status")
	for _, want := range []string{tomlPath, "rename it to config.yaml with YAML syntax", `becomes chroma-url: "http://chroma.internal:8000"`} {
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("only config.toml: exit %d, want %d with %q:\n%s", code, cmdutil.ExitUsage, want, stderr)
		}
	}
	if code, stdout, _ := runCLI(t, "index", "status", "--help"); code != cmdutil.ExitOK || !strings.Contains(stdout, "USAGE") {
		t.Errorf("--help with a config.toml: exit %d, no help:\n%s", code, stdout)
	}
}

// TestConfigKeysMatchFlags: every flag's CMDAI_* variable is a key of
// the configuration file, of the flag's type, and every key but home
// (read by package config itself) is some flag's.
func TestConfigKeysMatchFlags(t *testing.T) {
	io, _, _ := testIO()
	app := newApp(cmdutil.NewFactory(io, func(string) string { return "" }, ""))
	kinds := map[string]config.Kind{}
	for _, s := range config.Settings {
		kinds[s.Env] = s.Kind
	}
	used := map[string]bool{config.EnvHome: true}
	var walk func(flags []cli.Flag, cmds []*cli.Command)
	walk = func(flags []cli.Flag, cmds []*cli.Command) {
		for _, b := range bindConfig(flags) {
			used[b.env] = true
			want, ok := kinds[b.env]
			if !ok {
				t.Errorf("--%s reads %s, which the configuration file does not know", b.name, b.env)
				continue
			}
			fl := b.flag
			if d, ok := fl.(*clix.Deprecated); ok {
				// an old spelling sets its new flag: the new one's kind
				for _, nf := range flags {
					if slices.Contains(nf.Names(), d.New) {
						fl = nf
					}
				}
			}
			if got := flagKind(fl); got != want {
				t.Errorf("--%s: the file's %s is %v, the flag takes %v", b.name, b.env, want, got)
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
	for _, s := range config.Settings {
		if !used[s.Env] {
			t.Errorf("configuration key %s (%s) sets no flag", s.Key(), s.Env)
		}
	}
}

// flagKind says what a flag takes, by the type its Get returns (which
// wrappers such as nonEmptyStringFlag keep); -1 for none of the kinds.
func flagKind(f cli.Flag) config.Kind {
	switch f.(type) {
	case interface{ Get(*cli.Context) string }:
		return config.String
	case interface{ Get(*cli.Context) bool }:
		return config.Bool
	case interface{ Get(*cli.Context) int }:
		return config.Int
	case interface {
		Get(*cli.Context) time.Duration
	}:
		return config.Duration
	}
	return -1
}
