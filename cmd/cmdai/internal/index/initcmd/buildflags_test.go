package initcmd

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// sharedBuildFlags are the flags init and refresh both take: the same
// names, aliases, defaults and CMDAI_* variables (so the same
// configuration-file keys) in both.
var sharedBuildFlags = []string{
	"batch-mode", "json", "distro", "lang", "embed-workers", "docs", "prose-budget", "embed-tokens",
	"model-dir", "model-variant", "embed-backend",
	"chroma-url", "chroma-tenant", "chroma-database", "chroma-token", "chroma-token-header", "chroma-bin", "chroma-data",
}

func flagsByName(t *testing.T, cmd *cli.Command) map[string]cli.DocGenerationFlag {
	t.Helper()
	out := map[string]cli.DocGenerationFlag{}
	for _, fl := range cmd.Flags {
		df, ok := fl.(cli.DocGenerationFlag)
		if !ok {
			t.Fatalf("%s: flag %v has no help to compare", cmd.Name, fl.Names())
		}
		out[fl.Names()[0]] = df
	}
	return out
}

// TestInitAndRefreshShareBuildFlags: every flag the two commands have in
// common is one of the shared ones, and each is the same in both but for
// its usage text (refresh's points back at init's).
func TestInitAndRefreshShareBuildFlags(t *testing.T) {
	f := &cmdutil.Factory{}
	init, refresh := flagsByName(t, NewCmdInit(f, nil)), flagsByName(t, NewCmdRefresh(f, nil))
	var common []string
	for _, fl := range NewCmdRefresh(f, nil).Flags {
		if _, ok := init[fl.Names()[0]]; ok {
			common = append(common, fl.Names()[0])
		}
	}
	if !reflect.DeepEqual(common, sharedBuildFlags) {
		t.Errorf("flags of both init and refresh: %v, want %v", common, sharedBuildFlags)
	}
	for _, name := range sharedBuildFlags {
		a, b := init[name], refresh[name]
		if a == nil || b == nil {
			t.Errorf("--%s: in init %v, in refresh %v", name, a != nil, b != nil)
			continue
		}
		if reflect.TypeOf(a) != reflect.TypeOf(b) {
			t.Errorf("--%s: %T in init, %T in refresh", name, a, b)
		}
		for _, c := range []struct {
			what       string
			init, refr any
		}{
			{"names", a.Names(), b.Names()},
			{"env vars", a.GetEnvVars(), b.GetEnvVars()},
			{"takes a value", a.TakesValue(), b.TakesValue()},
			{"default", a.GetValue(), b.GetValue()},
			{"default text", a.GetDefaultText(), b.GetDefaultText()},
		} {
			if !reflect.DeepEqual(c.init, c.refr) {
				t.Errorf("--%s %s: %v in init, %v in refresh", name, c.what, c.init, c.refr)
			}
		}
	}
	if got := init["prose-budget"].GetValue(); got != "512" {
		t.Errorf("--prose-budget default %q, want 512", got)
	}
}

// TestBuildFlagsReachTheChecks: in both commands the shared flags fill
// the options their checks read, refused before anything is opened.
func TestBuildFlagsReachTheChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--embed-workers", "-1"}, "--embed-workers must be 0 or more, not -1"},
		{[]string{"--prose-budget", "-2"}, "--prose-budget must be 0 or more, not -2"},
		{[]string{"--distro", "a b"}, `--distro: invalid distribution id "a b"`},
		{[]string{"--model-variant", "fp16"}, "fp16"},
	} {
		for _, newCmd := range []newBuildCmd{NewCmdInit, NewCmdRefresh} {
			name, err := runRefused(newCmd, tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %v: error %v, want one with %q", name, tc.args, err, tc.want)
			}
		}
	}
}

type newBuildCmd func(*cmdutil.Factory, func(*InitOptions) error) *cli.Command

// runRefused runs the command with args; a flag that does not reach its
// check lets the command reach its runF, which is an error here.
func runRefused(newCmd newBuildCmd, args []string) (name string, err error) {
	errRan := errors.New("the command ran: its checks let the flags through")
	cmd := newCmd(&cmdutil.Factory{}, func(*InitOptions) error { return errRan })
	app := &cli.App{Name: "cmdai", Commands: []*cli.Command{cmd}, ExitErrHandler: func(*cli.Context, error) {}}
	return cmd.Name, app.Run(append([]string{"cmdai", cmd.Name}, args...))
}
