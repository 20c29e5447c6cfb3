package doctorcmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/cmdtest"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
)

// TestDoctorFlags: the flags and their variables reach the options.
func TestDoctorFlags(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	var got *Options
	cmd := NewCmdDoctor(f, func(o *Options) error { got = o; return nil })
	err := cmdtest.Run(t, cmd, cmdtest.Env{"CMDAI_JSON": "1", "CMDAI_CHROMA_URL": "http://c:1"},
		"doctor", "--distro", "fedora-40", "--model-dir", "/m", "--model-variant", "fp32", "--embed-backend", "go", "--chroma-bin", "/b")
	if err != nil || got == nil {
		t.Fatalf("doctor: %v", err)
	}
	want := Options{Factory: f, JSON: true, Distro: "fedora-40", Model: cmdutil.ModelOptions{Dir: "/m", Variant: "fp32", Backend: "go"},
		Chroma: cmdutil.ChromaOptions{URL: "http://c:1", TokenHeader: "Authorization", Bin: "/b"}}
	if !got.AutoServe.On || got.AutoServe.Idle != cmdutil.DefaultAutoServeIdle {
		t.Errorf("auto-serve: %+v; want the read commands' defaults", got.AutoServe)
	}
	want.AutoServe = got.AutoServe // its flag is internal
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("options:\n got %+v\nwant %+v", *got, want)
	}
}

func TestDoctorUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"doctor", "now"}, `unexpected argument "now": cmdai doctor takes no arguments`},
		{[]string{"doctor", "--model-variant", "fp16"}, `--model-variant "fp16": use int8 or fp32`},
		{[]string{"doctor", "--distro", "Debian 12"}, `--distro: invalid distribution id "Debian 12"`},
		{[]string{"doctor", "--jsn"}, `unknown flag --jsn for "cmdai doctor"; did you mean --json? (see "cmdai doctor --help")`},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		ran := false
		err := cmdtest.Run(t, NewCmdDoctor(f, func(*Options) error { ran = true; return nil }), nil, tc.args...)
		if ran {
			t.Errorf("%v: ran", tc.args)
		}
		cmdtest.Usage(t, err, tc.want)
	}
}

// TestPrintReport: one line per part (path, version, detail, and the fix
// of a part that is not ok), then the verdict.
func TestPrintReport(t *testing.T) {
	f, out, _ := cmdtest.Factory(t, nil)
	rep := Report{OK: false, Components: []Component{
		{Name: "tokenizers", Status: StatusOK, Version: "0.1", Detail: "pure Go"},
		{Name: "model", Status: StatusMissing, Path: "/m", Detail: "not installed", Fix: "cmdai model pull"},
		{Name: "index", Status: StatusOK, Detail: "fine", Fix: "never shown"},
		{Name: "chroma", Status: StatusBad, Detail: "bad \x1b]0;title\a reply"},
	}}
	printReport(&Options{Factory: f}, rep)
	want := `ok       tokenizers   (0.1): pure Go
missing  model        /m: not installed; fix: cmdai model pull
ok       index        fine
bad      chroma       bad  reply
cmdai doctor: some parts need the fix above
`
	if out.String() != want {
		t.Errorf("report:\n%q\nwant:\n%q", out, want)
	}
	out.Reset()
	printReport(&Options{Factory: f}, Report{OK: true})
	if out.String() != "cmdai doctor: every part cmdai needs is in place\n" {
		t.Errorf("all ok: %q", out)
	}
}

// TestDoctorRun: the whole check against a model directory with no model
// and a Chroma URL that does not answer: exit 5 (the model, first in the
// order), every part in the JSON with every key, the index not checked.
func TestDoctorRun(t *testing.T) {
	for _, asJSON := range []bool{true, false} {
		f, out, _ := cmdtest.Factory(t, nil)
		opts := &Options{Factory: f, JSON: asJSON, Distro: "debian-12",
			Model:  cmdutil.ModelOptions{Dir: t.TempDir(), Backend: embed.BackendGo},
			Chroma: cmdutil.ChromaOptions{URL: "http://127.0.0.1:1"}}
		err := run(t.Context(), opts)
		cmdtest.Code(t, err, cmdutil.ExitVerification, "doctor: model is missing: "+fixModelMissing)
		if !asJSON {
			if !strings.Contains(out.String(), "missing  model ") || !strings.HasSuffix(out.String(), "cmdai doctor: some parts need the fix above\n") {
				t.Errorf("report:\n%s", out)
			}
			continue
		}
		var rep struct {
			SchemaVersion int              `json:"schema_version"`
			OK            bool             `json:"ok"`
			Components    []map[string]any `json:"components"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.HasPrefix(out.String(), "{\n  \"schema_version\": 1,") || rep.OK {
			t.Errorf("report:\n%s", out)
		}
		var names []string
		status := map[string]any{}
		for _, c := range rep.Components {
			names = append(names, c["name"].(string))
			status[c["name"].(string)] = c["status"]
			if len(c) != 6 {
				t.Errorf("%v: %d keys, want all 6", c, len(c))
			}
		}
		if want := []string{"onnxruntime", "tokenizers", "model", "reranker", "chroma", "isolation", "index", "data-lock", "serve", "man-db", "release-key"}; !reflect.DeepEqual(names, want) {
			t.Errorf("parts %v, want %v", names, want)
		}
		if status["model"] != StatusMissing || status["chroma"] != StatusMissing || status["index"] != StatusWarning || status["data-lock"] != StatusOK || status["serve"] != StatusOK {
			t.Errorf("statuses %v", status)
		}
	}
}

// TestCheckIndex: the index part against fakes of Chroma: not checked
// when Chroma is unusable, no index before any build, a busy server a
// warning, an unreachable one bad with exit 4.
func TestCheckIndex(t *testing.T) {
	okChroma := Component{Name: "chroma", Status: StatusOK}
	for _, tc := range []struct {
		name    string
		opts    Options
		chroma  Component
		connect error
		status  string
		code    int
		detail  string
	}{
		{"chroma missing", Options{Chroma: cmdutil.ChromaOptions{URL: "http://x:1"}}, Component{Status: StatusMissing}, nil, StatusWarning, cmdutil.ExitNoIndex, "not checked: Chroma is not usable"},
		{"never built", Options{}, okChroma, nil, StatusWarning, cmdutil.ExitNoIndex, "no index yet"},
		{"busy", Options{Chroma: cmdutil.ChromaOptions{URL: "http://x:1"}}, okChroma, cmdutil.WithCode(cmdutil.ExitBusy, errors.New("locked by pid 7")), StatusWarning, cmdutil.ExitNoIndex, "not checked: locked by pid 7"},
		{"unreachable", Options{Chroma: cmdutil.ChromaOptions{URL: "http://x:1"}}, okChroma, cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("refused")), StatusBad, cmdutil.ExitUnreachable, "refused"},
	} {
		f, _, _ := cmdtest.Factory(t, nil)
		connects := 0
		f.Connect = func(context.Context, cmdutil.ChromaOptions) (*connect.Connection, error) {
			connects++
			return nil, tc.connect
		}
		tc.opts.Factory = f
		c := checkIndex(t.Context(), &tc.opts, tc.chroma, Component{}, Component{})
		if c.Status != tc.status || c.code != tc.code || !strings.Contains(c.Detail, tc.detail) || c.Path != "cmdai_linux_debian-12" {
			t.Errorf("%s: %+v; want %s, exit %d, %q", tc.name, c, tc.status, tc.code, tc.detail)
		}
		if want := tc.connect != nil; (connects == 1) != want {
			t.Errorf("%s: %d connections", tc.name, connects)
		}
	}
	// a private server's data with a database in it is read
	f, _, _ := cmdtest.Factory(t, nil)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, chromaDB), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var asked cmdutil.ChromaOptions
	f.Connect = func(_ context.Context, o cmdutil.ChromaOptions) (*connect.Connection, error) {
		asked = o
		return nil, cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("did not start"))
	}
	c := checkIndex(t.Context(), &Options{Factory: f, Chroma: cmdutil.ChromaOptions{DataDir: data}}, okChroma, Component{}, Component{})
	if c.Status != StatusBad || asked.DataDir != data {
		t.Errorf("built index: %+v, asked %+v", c, asked)
	}
	// the distribution cannot be told
	f.DetectDistro = func(context.Context) (distro.Info, error) { return distro.Info{}, errors.New("no os-release") }
	c = checkIndex(t.Context(), &Options{Factory: f}, okChroma, Component{}, Component{})
	if c.Status != StatusWarning || !strings.Contains(c.Detail, "pass --distro ID") {
		t.Errorf("no distribution: %+v", c)
	}
}

// TestCheckParts: the probes that need nothing installed.
func TestCheckParts(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	opts := &Options{Factory: f, Chroma: cmdutil.ChromaOptions{DataDir: t.TempDir()}}
	if c := checkLock(opts); c.Status != StatusOK || c.Detail != "free" {
		t.Errorf("free data directory: %+v", c)
	}
	if c := checkLock(&Options{Factory: f, Chroma: cmdutil.ChromaOptions{URL: "http://x"}}); c.Status != StatusOK || c.Detail != "not used with --chroma-url" {
		t.Errorf("remote: %+v", c)
	}
	notExec := filepath.Join(t.TempDir(), "chroma")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := checkChroma(t.Context(), &Options{Factory: f, Chroma: cmdutil.ChromaOptions{Bin: notExec}})
	if c.Status != StatusMissing || c.code != cmdutil.ExitUnreachable || c.Detail != notExec+" (--chroma-bin or CMDAI_CHROMA_BIN) is not an executable file" || c.Fix != fixChroma {
		t.Errorf("--chroma-bin not executable: %+v", c)
	}
	c = checkChroma(t.Context(), &Options{Factory: f, Chroma: cmdutil.ChromaOptions{URL: "http://127.0.0.1:1"}})
	if c.Status != StatusMissing || c.Path != "http://127.0.0.1:1" || !strings.HasPrefix(c.Detail, "no heartbeat from http://127.0.0.1:1") {
		t.Errorf("--chroma-url not answering: %+v", c)
	}
	c = checkModel(&Options{Factory: f, Model: cmdutil.ModelOptions{Dir: t.TempDir(), Variant: "int8"}}, Component{Status: StatusOK})
	if c.Status != StatusMissing || c.Detail != "not installed" || c.Version != embed.ModelName+" int8" || c.code != cmdutil.ExitVerification {
		t.Errorf("no model: %+v", c)
	}
	// the pure-Go backend runs fp32 whatever ONNX Runtime's state
	if c := checkModel(&Options{Factory: f, Model: cmdutil.ModelOptions{Dir: t.TempDir(), Backend: embed.BackendGo}}, Component{Status: StatusOK}); c.Version != embed.ModelName+" fp32" {
		t.Errorf("pure Go: %+v", c)
	}
	if c := checkTokenizers(); c.Status != StatusOK || c.Detail == "" {
		t.Errorf("tokenizers: %+v", c)
	}
}

// TestCheckORT: a build without ONNX Runtime is a warning, never a
// failure; a build with it and no library is missing (exit 5) unless the
// pure-Go backend is asked for.
func TestCheckORT(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, cmdtest.Env{embed.EnvORTLibDir: t.TempDir()})
	c := checkORT(&Options{Factory: f})
	if !embed.ORTAvailable() {
		if c.Status != StatusWarning || c.code != 0 || !strings.Contains(c.Detail, "pure-Go build") {
			t.Errorf("pure-Go build: %+v", c)
		}
		return
	}
	if c.Status != StatusMissing || c.code != cmdutil.ExitVerification || !strings.Contains(c.Detail, embed.EnvORTLibDir+"=") {
		t.Errorf("no library in %s: %+v", embed.EnvORTLibDir, c)
	}
	if c := checkORT(&Options{Factory: f, Model: cmdutil.ModelOptions{Backend: embed.BackendGo}}); c.Status != StatusWarning || c.code != 0 {
		t.Errorf("no library, pure Go asked: %+v", c)
	}
}

// TestServeWarnsWithoutASocket: where no serve could make its socket (a
// read-only filesystem; /proc stands in, as root writes anywhere else),
// the serve line is a warning with the way on, not ok: every answer then
// takes a second.
func TestServeWarnsWithoutASocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test needs a directory root cannot write to, /proc: run it as root (make test does)")
	}
	for _, c := range []struct {
		runtime string
		want    string
	}{{t.TempDir(), StatusOK}, {"/proc", StatusWarning}} {
		f, _, _ := cmdtest.Factory(t, cmdtest.Env{"HOME": t.TempDir(), "XDG_RUNTIME_DIR": c.runtime, "CMDAI_HOME": ""})
		got := checkServe(t.Context(), &Options{Factory: f, Distro: "debian-12"})
		if got.Status != c.want || (c.want == StatusWarning) != strings.Contains(got.Fix, "XDG_RUNTIME_DIR") {
			t.Errorf("XDG_RUNTIME_DIR=%s: %+v, want status %s", c.runtime, got, c.want)
		}
	}
}

// TestCheckIsolation: doctor says whether only this user reaches the
// private Chroma server (the real one, jailed here) and warns, with the
// way out, when every local user would.
func TestCheckIsolation(t *testing.T) {
	f, _, _ := cmdtest.Factory(t, nil)
	bin, err := chroma.FindBin("", os.Getenv)
	if err != nil {
		t.Fatalf("the pinned Chroma server (make chroma): %v", err)
	}
	found := Component{Name: "chroma", Status: StatusOK, Path: bin}
	t.Setenv(chroma.NoJailEnv, "")
	c := checkIsolation(t.Context(), &Options{Factory: f}, found)
	if c.Status != StatusOK || !strings.Contains(c.Detail, "only you: a network namespace of its own") {
		t.Errorf("jailed: %+v", c)
	}
	t.Setenv(chroma.NoJailEnv, "1")
	c = checkIsolation(t.Context(), &Options{Factory: f}, found)
	if c.Status != StatusWarning || c.code != 0 || !strings.Contains(c.Detail, "every local user") || !strings.HasPrefix(c.Fix, "unset "+chroma.NoJailEnv) {
		t.Errorf("not jailed: %+v", c)
	}
	c = checkIsolation(t.Context(), &Options{Factory: f, Chroma: cmdutil.ChromaOptions{URL: "http://x"}}, found)
	if c.Status != StatusOK || !strings.Contains(c.Detail, "not used with --chroma-url") {
		t.Errorf("remote: %+v", c)
	}
}
