package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/doctorcmd"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/testnet"
	"github.com/cmdai/cmdai/packaging"
)

// runProcess runs this test binary as cmdai (TestMain's CMDAI_TEST_CLI)
// from exe, in env (later entries win), bounded in time: a fresh
// process, so that ONNX Runtime is loaded from where it says.
func runProcess(t *testing.T, exe string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(env, "CMDAI_TEST_CLI="+strings.Join(args, "\n"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("cmdai %v did not end within 3 minutes: %s", args, errOut.String())
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

func doctorReport(t *testing.T, stdout string) map[string]doctorcmd.Component {
	t.Helper()
	var rep struct {
		SchemaVersion int                   `json:"schema_version"`
		OK            bool                  `json:"ok"`
		Components    []doctorcmd.Component `json:"components"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.SchemaVersion != 1 {
		t.Fatalf("doctor --json: %v, schema %d: %s", err, rep.SchemaVersion, stdout)
	}
	byName := map[string]doctorcmd.Component{}
	for _, c := range rep.Components {
		byName[c.Name] = c
	}
	for _, n := range []string{"onnxruntime", "tokenizers", "model", "reranker", "chroma", "isolation", "index", "data-lock", "man-db", "release-key"} {
		if _, ok := byName[n]; !ok {
			t.Errorf("doctor --json lacks %s: %s", n, stdout)
		}
	}
	// It says whether downloads are signature-checked, as this build does.
	pinned, err := packaging.PinnedKeys()
	if rk := byName["release-key"]; err != nil || rk.Status != doctorcmd.StatusOK || strings.HasPrefix(rk.Detail, "none pinned") != (len(pinned) == 0) {
		t.Errorf("release-key %+v, with %d keys pinned (%v)", rk, len(pinned), err)
	}
	bad := false
	for _, c := range rep.Components {
		bad = bad || c.Status == doctorcmd.StatusMissing || c.Status == doctorcmd.StatusBad
	}
	if rep.OK == bad {
		t.Errorf("ok %v with components %+v", rep.OK, rep.Components)
	}
	return byName
}

// installLayout copies this test binary to PREFIX/bin/cmdai and puts the
// tools beside it as `make install` lays them out (links to the real
// ones), with a symlink to the binary in HOME/bin. It returns the link,
// the real prefix and HOME.
func installLayout(t *testing.T) (link, prefix, home string) {
	t.Helper()
	tools := os.Getenv("CMDAI_TOOLS")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	prefix, home = filepath.Join(root, "prefix"), filepath.Join(root, "home")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyExe(t, exe, filepath.Join(prefix, "bin", "cmdai"))
	for dst, src := range map[string]string{
		"lib/cmdai/" + embed.ORTLibName:         filepath.Join(tools, "lib", embed.ORTLibName),
		"lib/cmdai/chroma/bin/chroma":           filepath.Join(tools, "chroma", "venv", "bin", "chroma"),
		"share/cmdai/models/" + embed.ModelName: os.Getenv("CMDAI_MODEL_DIR"),
	} {
		real, err := filepath.EvalSymlinks(src)
		if err != nil {
			t.Fatal(err)
		}
		symlink(t, real, filepath.Join(prefix, dst))
	}
	link = filepath.Join(home, "bin", "cmdai")
	symlink(t, filepath.Join(prefix, "bin", "cmdai"), link)
	return link, prefix, home
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func copyExe(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) == nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorInstalledLayout: a cmdai installed under a prefix, run
// through a symlink in ~/bin with a bare environment (no CMDAI_*, no
// checkout), finds ONNX Runtime, the Chroma server and the model beside
// its real path; doctor passes before any index is built; an older
// cmdai's data in ~/.cache/cmdai is moved to ~/.local/share/cmdai once.
func TestDoctorInstalledLayout(t *testing.T) {
	realEnv(t)
	link, prefix, home := installLayout(t)
	old := filepath.Join(home, ".cache", "cmdai", "keywords", "cmdai_linux_debian-12-0123456789ab.bm25")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("postings"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	code, out, errOut := runProcess(t, link, env, "doctor", "--json", "--distro", "debian-12")
	if code != cmdutil.ExitOK {
		t.Fatalf("doctor: exit %d\n%s\n%s", code, out, errOut)
	}
	comps := doctorReport(t, out)
	for name, want := range map[string]string{
		"onnxruntime": filepath.Join(prefix, "lib", "cmdai", embed.ORTLibName),
		"chroma":      filepath.Join(prefix, "lib", "cmdai", "chroma", "bin", "chroma"),
		"model":       filepath.Join(prefix, "share", "cmdai", "models", embed.ModelName),
		"tokenizers":  "",
	} {
		if c := comps[name]; c.Status != doctorcmd.StatusOK || c.Path != want {
			t.Errorf("%s: %+v; want ok at %q", name, c, want)
		}
	}
	if c := comps["onnxruntime"]; !strings.HasPrefix(c.Version, "1.") {
		t.Errorf("ONNX Runtime version %q", c.Version)
	}
	if c := comps["index"]; c.Status != doctorcmd.StatusWarning || !strings.Contains(c.Fix, "cmdai index init") {
		t.Errorf("index before init: %+v; want a warning saying to run init", c)
	}
	data := filepath.Join(home, ".local", "share", "cmdai")
	if c := comps["data-lock"]; c.Status != doctorcmd.StatusOK || c.Path != filepath.Join(data, "chroma", "cmdai.lock") {
		t.Errorf("data-lock: %+v", c)
	}
	moved := filepath.Join(data, "keywords", filepath.Base(old))
	if _, err := os.Stat(moved); err != nil || !strings.Contains(errOut, "moved") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("old home: %v; stderr %q; want the keywords moved and one line saying so", err, errOut)
	}
	code, out, errOut = runProcess(t, link, env, "doctor", "--distro", "debian-12")
	if code != 0 || errOut != "" || strings.Count(out, "\n") != 12 || !strings.Contains(out, "ok       onnxruntime  "+filepath.Join(prefix, "lib")) ||
		!strings.Contains(out, "warning  reranker     ") {
		t.Errorf("doctor (text), second run: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestDoctorBadParts: each part missing or broken in turn, in a fresh
// process: doctor names it with its fix and exit code, and so does the
// command that needs it (a query of a real index), quickly.
func TestDoctorBadParts(t *testing.T) {
	initGizmoMachine(t, false)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	emptyLib := filepath.Join(dir, "empty")
	garbageLib := filepath.Join(dir, "garbage")
	wrongLib := filepath.Join(dir, "wrong")
	writeFile(t, filepath.Join(garbageLib, embed.ORTLibName), []byte("\x7fELG garbage bytes, not a library\n"))
	if err := os.MkdirAll(emptyLib, 0o755); err != nil {
		t.Fatal(err)
	}
	// A real ELF library of another machine: ONNX Runtime's, its header's
	// machine changed to AArch64 (x86-64 on an arm64 host).
	raw, err := os.ReadFile(filepath.Join(os.Getenv("CMDAI_TOOLS"), "lib", embed.ORTLibName))
	if err != nil {
		t.Fatal(err)
	}
	if raw[18] == 0xb7 {
		raw[18] = 0x3e
	} else {
		raw[18] = 0xb7
	}
	raw[19] = 0
	writeFile(t, filepath.Join(wrongLib, embed.ORTLibName), raw)
	badModel := filepath.Join(dir, "model")
	copyModel(t, os.Getenv("CMDAI_MODEL_DIR"), badModel)
	onnx := filepath.Join(badModel, "model_int8.onnx")
	weights, err := os.ReadFile(onnx)
	if err != nil {
		t.Fatal(err)
	}
	weights[len(weights)/2] ^= 0xff
	writeFile(t, onnx, weights)
	fakeChroma := filepath.Join(dir, "path", "chroma")
	writeFile(t, fakeChroma, []byte("#!/bin/sh\necho 'chroma 0.4.24'\n"))
	if err := os.Chmod(fakeChroma, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, part string
		env        []string
		code       int
		detail     string // in doctor's detail and the query's error
	}{
		{"no ONNX Runtime", "onnxruntime", []string{embed.EnvORTLibDir + "=" + emptyLib}, cmdutil.ExitVerification, "holds no " + embed.ORTLibName},
		{"garbage ONNX Runtime", "onnxruntime", []string{embed.EnvORTLibDir + "=" + garbageLib}, cmdutil.ExitVerification, "not an ELF shared library"},
		{"ONNX Runtime of another machine", "onnxruntime", []string{embed.EnvORTLibDir + "=" + wrongLib}, cmdutil.ExitVerification, "another machine"},
		{"model checksum", "model", []string{"CMDAI_MODEL_DIR=" + badModel}, cmdutil.ExitVerification, "model_int8.onnx has sha256"},
		{"old chroma on PATH", "chroma", []string{"CMDAI_TOOLS=" + dir, "PATH=" + filepath.Dir(fakeChroma) + ":/usr/bin:/bin"}, cmdutil.ExitUnreachable, "chroma 0.4.24"},
		{"chroma-url unreachable", "chroma", []string{"CMDAI_CHROMA_URL=http://" + testnet.ClosedPort(t)}, cmdutil.ExitUnreachable, "no heartbeat"},
	}
	for _, c := range cases {
		env := append(os.Environ(), c.env...)
		start := time.Now()
		code, out, errOut := runProcess(t, exe, env, "doctor", "--json", "--distro", "debian-12")
		comps := doctorReport(t, out)
		p := comps[c.part]
		if code != c.code || (p.Status != doctorcmd.StatusMissing && p.Status != doctorcmd.StatusBad) || !strings.Contains(p.Detail, c.detail) || p.Fix == "" {
			t.Errorf("%s: doctor exit %d, %s: %+v; want exit %d, %q and a fix\n%s", c.name, code, c.part, p, c.code, c.detail, errOut)
		}
		if !strings.Contains(errOut, c.part) {
			t.Errorf("%s: doctor's stderr %q does not name %s", c.name, errOut, c.part)
		}
		if c.part == "chroma" && strings.Contains(c.detail, "heartbeat") {
			continue // a query with --chroma-url down answers from disk (degraded), by design
		}
		// --strict: init left the keyword index on disk, which a query
		// without Chroma answers from (degraded, exit 0) by design
		code, _, errOut = runProcess(t, exe, env, "index", "query", "turn widgets into gadgets", "--distro", "debian-12", "--mode", "semantic", "--strict")
		if code != c.code || !strings.Contains(errOut, c.detail) || !strings.Contains(errOut, "cmdai doctor") {
			t.Errorf("%s: query exit %d: %s; want exit %d naming %q and pointing at cmdai doctor", c.name, code, errOut, c.code, c.detail)
		}
		if d := time.Since(start); d > time.Minute {
			t.Errorf("%s: took %s", c.name, d)
		}
	}
	// Everything in place: every part ok, the index with its records.
	code, out, errOut := runProcess(t, exe, os.Environ(), "doctor", "--json", "--distro", "debian-12")
	comps := doctorReport(t, out)
	if code != 0 || comps["index"].Status != doctorcmd.StatusOK || !strings.Contains(comps["index"].Detail, "records") {
		t.Errorf("all present: exit %d, index %+v\n%s", code, comps["index"], errOut)
	}
	for _, n := range []string{"onnxruntime", "tokenizers", "model", "chroma", "data-lock"} {
		if comps[n].Status != doctorcmd.StatusOK {
			t.Errorf("all present: %s is %+v", n, comps[n])
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyModel(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, e.Name()), raw)
	}
}

// TestDoctorOKBesideItsServe (issue 46: doctor warned of the serve cmdai
// starts itself): the data held by a cmdai serve, which lends it to
// every writer, is fine; held by another command (a writer), it is a
// warning with what to do.
func TestDoctorOKBesideItsServe(t *testing.T) {
	smallIndex(t)
	stop, _ := startServe(t)
	_, out, _ := runCLI(t, "doctor", "--json", "--distro", "debian-12")
	if c := doctorReport(t, out)["data-lock"]; c.Status != doctorcmd.StatusOK || !strings.Contains(c.Detail, "lends it") {
		t.Errorf("data-lock beside a serve: %+v", c)
	}
	need(t, stop())
	data, err := config.ChromaDir(os.Getenv)
	need(t, err)
	bin, _ := chroma.FindBin("", os.Getenv)
	srv, err := chroma.StartServer(context.Background(), chroma.ServerOptions{Bin: bin, DataDir: data})
	need(t, err)
	defer srv.Stop()
	_, out, _ = runCLI(t, "doctor", "--json", "--distro", "debian-12")
	if c := doctorReport(t, out)["data-lock"]; c.Status != doctorcmd.StatusWarning || c.Fix == "" {
		t.Errorf("data-lock held by a writer: %+v", c)
	}
}
