package clix

import (
	"io"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestEmptyEnvironmentMeansUnset: an environment variable set to empty
// leaves the flag's default (the library took "" over it: CMDAI_QUERY_MODE=
// gave mode ""), an empty value on the command line is refused, and only
// the command line counts as giving the flag.
func TestEmptyEnvironmentMeansUnset(t *testing.T) {
	for _, tc := range []struct {
		env       string
		args      []string
		wantErr   bool
		wantMode  string
		wantGiven bool
	}{
		{"", nil, false, "semantic", false},
		{"hybrid", nil, false, "hybrid", false},
		{"", []string{"--mode", "keyword"}, false, "keyword", true},
		{"hybrid", []string{"--mode", "keyword"}, false, "keyword", true},
		{"", []string{"--mode", ""}, true, "", false},
		{"hybrid", []string{"--mode= "}, true, "", false},
	} {
		t.Setenv("CMDAI_TEST_MODE", tc.env)
		var mode string
		given := false
		app := &cli.App{
			Writer: io.Discard, ErrWriter: io.Discard, ExitErrHandler: func(*cli.Context, error) {},
			Commands: []*cli.Command{{
				Name:  "q",
				Flags: []cli.Flag{&cli.StringFlag{Name: "mode", Value: "semantic", EnvVars: []string{"CMDAI_TEST_MODE"}, Destination: &mode}},
				Action: func(c *cli.Context) error {
					given = OnCommandLine(c, "mode")
					return nil
				},
			}},
		}
		RefuseEmptyValues(app.Commands)
		err := app.Run(append([]string{"cmdai", "q"}, tc.args...))
		if (err != nil) != tc.wantErr || (!tc.wantErr && (mode != tc.wantMode || given != tc.wantGiven)) {
			t.Errorf("env %q, args %q: err %v, mode %q, given %v; want error %v, mode %q, given %v", tc.env, tc.args, err, mode, given, tc.wantErr, tc.wantMode, tc.wantGiven)
		}
	}
}
