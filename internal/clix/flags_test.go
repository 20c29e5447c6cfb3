package clix

import (
	"io"
	"path/filepath"
	"strings"
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

func TestValueChecks(t *testing.T) {
	dir := t.TempDir()
	if err := NotNegative("parallel", 0); err != nil {
		t.Errorf("0: %v", err)
	}
	if err := NotNegative("parallel", -1); !IsUsage(err) || err.Error() != "--parallel must be 0 or more, not -1" {
		t.Errorf("-1: %v", err)
	}
	for _, ok := range []string{dir, filepath.Join(dir, "new.tar.gz")} {
		if err := OutputPath(ok); err != nil {
			t.Errorf("OutputPath(%s): %v", ok, err)
		}
	}
	if err := OutputPath(filepath.Join(dir, "no", "x.tar.gz")); !IsUsage(err) || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("OutputPath in a missing directory: %v", err)
	}
	run := func(args ...string) ([]string, error) {
		var got []string
		a := app(func(c *cli.Context) (err error) {
			got, err = ExistingDirs(c, "docs")
			return err
		}, &cli.StringSliceFlag{Name: "docs"})
		err := a.Run(append([]string{"tool", "group", "leaf"}, args...))
		return got, err
	}
	if got, err := run("--docs", dir); err != nil || len(got) != 1 || got[0] != dir {
		t.Errorf("--docs %s: %v %v", dir, got, err)
	}
	if _, err := run("--docs", filepath.Join(dir, "nope")); !IsUsage(err) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("--docs of a missing directory: %v", err)
	}
	if _, err := run("--docs", " "); !IsUsage(err) || !strings.Contains(err.Error(), "--docs needs a value") {
		t.Errorf("--docs ' ': %v", err)
	}
}
