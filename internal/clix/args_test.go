package clix

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// app is a two-level app whose leaf runs action.
func app(action cli.ActionFunc, flags ...cli.Flag) *cli.App {
	a := &cli.App{
		Name: "tool", Writer: io.Discard, ErrWriter: io.Discard, ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: OnUsageError, Action: AppAction,
		Commands: []*cli.Command{{
			Name: "group", OnUsageError: OnUsageError, Action: GroupAction,
			Subcommands: []*cli.Command{{Name: "leaf", Flags: flags, OnUsageError: OnUsageError, Action: action}},
		}},
	}
	RefuseEmptyValues(a.Commands)
	return a
}

func TestArgumentChecks(t *testing.T) {
	noArgs := func(c *cli.Context) error { return NoArgs(c, "use --name") }
	oneArg := func(c *cli.Context) error { _, err := OneArg(c, "say which"); return err }
	for _, tc := range []struct {
		action cli.ActionFunc
		args   []string
		want   string // "" for no error
	}{
		{noArgs, nil, ""},
		{noArgs, []string{"x"}, `unexpected argument "x": tool group leaf takes no arguments; use --name (see "tool group leaf --help")`},
		{oneArg, []string{"x"}, ""},
		{oneArg, nil, "say which"},
		{oneArg, []string{" "}, "empty argument: say which"},
		{oneArg, []string{"x", "y"}, `unexpected argument "y": tool group leaf takes one argument (see "tool group leaf --help")`},
	} {
		err := app(tc.action).Run(append([]string{"tool", "group", "leaf"}, tc.args...))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.args, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want || !IsUsage(err) {
			t.Errorf("%q: %v (usage error: %v), want %q", tc.args, err, IsUsage(err), tc.want)
		}
	}
}

func TestGroupAndFlagErrorsAreUsageErrors(t *testing.T) {
	a := app(func(*cli.Context) error { return nil }, &cli.StringFlag{Name: "name"})
	for args, want := range map[string]string{
		"tool bogus":               `unknown command "bogus" for "tool" (see "tool --help")`,
		"tool gruop":               `unknown command "gruop" for "tool"; did you mean "group"? (see "tool --help")`,
		"tool group bogus":         `unknown command "bogus" for "tool group" (see "tool group --help")`,
		"tool group laef":          `unknown command "laef" for "tool group"; did you mean "leaf"? (see "tool group --help")`,
		"tool help gruop":          `unknown command "gruop" for "tool"; did you mean "group"? (see "tool --help")`,
		"tool group leaf --nope":   `unknown flag --nope for "tool group leaf" (see "tool group leaf --help")`,
		"tool group leaf --nmae=x": `unknown flag --nmae for "tool group leaf"; did you mean --name? (see "tool group leaf --help")`,
		"tool --nmae":              `unknown flag --nmae for "tool" (see "tool --help")`,
		"tool group leaf --name= ": `--name needs a value: an empty one is not the default (leave the flag out, or unset its environment variable, for that) (see "tool group leaf --help")`,
	} {
		var nf NotFound
		a.CommandNotFound = nf.Hook
		err := a.Run(strings.Split(args, " "))
		if err == nil {
			err = nf.Err()
		}
		if err == nil || err.Error() != want || !IsUsage(err) {
			t.Errorf("%s: %v, want the usage error %q", args, err, want)
		}
	}
	if IsUsage(errors.New("plain")) {
		t.Error("a plain error is a usage error")
	}
}

// TestClosest: a typo gets the nearest name, an unrelated word none.
func TestClosest(t *testing.T) {
	names := []string{"scan", "init", "refresh", "query", "status", "clear", "export", "import", "download", "eval", "docs"}
	for typed, want := range map[string]string{
		"qurey": "query", "stauts": "status", "imprt": "import", "cleer": "clear", "inti": "init", "query": "query",
		"bogus": "", "xyz": "", "q": "", "": "",
	} {
		if got := Closest(typed, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestHoistFlags(t *testing.T) {
	a := app(func(*cli.Context) error { return nil }, &cli.IntFlag{Name: "k"}, &cli.BoolFlag{Name: "json"}, &cli.BoolFlag{Name: "a"}, &cli.StringFlag{Name: "kx"})
	for _, c := range []struct{ in, want []string }{
		// -k1 as -k 1 (issue 46); not a bool's letter, not a flag's own name, not --k1 or -k=1
		{[]string{"tool", "group", "leaf", "a b", "-k1"}, []string{"tool", "group", "leaf", "-k", "1", "--", "a b"}},
		{[]string{"tool", "group", "leaf", "-k12", "--json", "x"}, []string{"tool", "group", "leaf", "-k", "12", "--json", "--", "x"}},
		{[]string{"tool", "group", "leaf", "-ab"}, []string{"tool", "group", "leaf", "-ab"}},
		{[]string{"tool", "group", "leaf", "-kx", "v"}, []string{"tool", "group", "leaf", "-kx", "v"}},
		{[]string{"tool", "group", "leaf", "-k=1", "--k1"}, []string{"tool", "group", "leaf", "-k=1", "--k1"}},
		{[]string{"tool", "group", "leaf", "a b", "-k", "3", "--json"}, []string{"tool", "group", "leaf", "-k", "3", "--json", "--", "a b"}},
		{[]string{"tool", "group", "leaf", "a", "--", "-k"}, []string{"tool", "group", "leaf", "--", "a", "-k"}},
		{[]string{"tool", "group"}, []string{"tool", "group"}},
	} {
		if got := HoistFlags(a, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("HoistFlags(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
