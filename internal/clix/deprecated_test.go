package clix

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestDeprecated: the old spelling sets the new flag as if given, with
// one note; the old variable does too unless the new one is set; help
// and the hoisting of flags before arguments treat it as its kind.
func TestDeprecated(t *testing.T) {
	run := func(t *testing.T, env map[string]string, args ...string) (d time.Duration, check, setNew bool, note string) {
		t.Helper()
		for _, k := range []string{"T_NEW", "T_OLD"} {
			t.Setenv(k, "")
		}
		for k, v := range env {
			t.Setenv(k, v)
		}
		var out bytes.Buffer
		app := &cli.App{Name: "x", Writer: &out, ErrWriter: &out, Commands: []*cli.Command{{
			Name: "get",
			Flags: []cli.Flag{
				&cli.DurationFlag{Name: "stall", Value: time.Second, EnvVars: []string{"T_NEW"}, Destination: &d},
				&Deprecated{Old: "idle", New: "stall", OldEnv: "T_OLD", NewEnv: "T_NEW", Out: &out},
				&cli.BoolFlag{Name: "check", Destination: &check},
				&Deprecated{Old: "verify", New: "check", Bool: true, Out: &out},
			},
			Action: func(c *cli.Context) error { setNew = c.IsSet("stall"); return nil },
		}}}
		if err := app.Run(HoistFlags(app, append([]string{"x", "get"}, args...))); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return d, check, setNew, out.String()
	}
	d, check, set, note := run(t, nil, "arg", "--idle", "2m", "--verify")
	if d != 2*time.Minute || !check || !set || strings.Count(note, "deprecated") != 2 || !strings.Contains(note, "--idle (T_OLD, config key t-old) is deprecated: use --stall") {
		t.Errorf("old spellings: %v %v %v %q", d, check, set, note)
	}
	if d, check, _, note = run(t, nil, "--stall", "3m", "--check"); d != 3*time.Minute || !check || note != "" {
		t.Errorf("new spellings: %v %v %q", d, check, note)
	}
	if d, _, _, note = run(t, map[string]string{"T_OLD": "4m"}); d != 4*time.Minute || !strings.Contains(note, "deprecated") {
		t.Errorf("old variable: %v %q", d, note)
	}
	if d, _, _, note = run(t, map[string]string{"T_OLD": "4m", "T_NEW": "5m"}); d != 5*time.Minute || note != "" {
		t.Errorf("both variables: %v %q", d, note)
	}
	if d, _, _, _ = run(t, map[string]string{"T_OLD": "4m"}, "--stall", "6m"); d != 6*time.Minute {
		t.Errorf("flag over old variable: %v", d)
	}
	dep := &Deprecated{Old: "verify", New: "check", Bool: true}
	if dep.IsVisible() || dep.TakesValue() || !dep.IsBoolFlag() {
		t.Errorf("a hidden bool alias: visible %v, takes a value %v", dep.IsVisible(), dep.TakesValue())
	}
}
