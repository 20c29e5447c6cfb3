package doctorcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/search/adapter"
	"github.com/cmdai/cmdai/serve/autostart"
)

// Bounds of the probes that could hang: loading a library that is not
// one, a server that does not answer.
const (
	ortTimeout   = 30 * time.Second
	indexTimeout = 2 * time.Minute // a cold private server takes up to 90 s
	manTimeout   = 5 * time.Second
)

// The fixes doctor prints.
var (
	fixORT = "`make install` from a cmdai checkout (ONNX Runtime goes to PREFIX/lib/cmdai), unpack a release archive (it has lib/cmdai/), or set " +
		embed.EnvORTLibDir + "=DIR, the directory of a working " + embed.ORTLibName + " 1.23 or newer"
	fixModelMissing = "`cmdai model pull` (online), `cmdai model import DIR|TAR` (a model exported elsewhere), or `make install` from a cmdai checkout"
	fixModelBad     = "replace it: `cmdai model pull`, or `cmdai model import DIR|TAR` with a good copy"
	fixChroma       = "`pipx install chromadb==" + chroma.ChromaVersion + "` (puts `chroma` on PATH), `make install` from a cmdai checkout, or pass --chroma-bin PATH, or --chroma-url URL for a server that runs"
	fixInit         = "`cmdai index init` (or `cmdai index download <distro-id>`)"
)

func checkORT(opts *Options) Component {
	c := Component{Name: "onnxruntime", code: cmdutil.ExitVerification}
	if !embed.ORTAvailable() {
		c.Status, c.code = StatusWarning, 0
		c.Detail = "not built into this cmdai (a pure-Go build): embeddings use the pure-Go backend, fp32 only and much slower, which cannot query an int8 index"
		c.Fix = "install a release archive, or `make install` from a cmdai checkout (it builds with ONNX Runtime)"
		return c
	}
	if dir := embed.FindORTLibDir(opts.Getenv); dir == "" {
		c.Status = StatusMissing
		c.Detail = embed.ORTLibName + " not found in " + strings.Join(embed.ORTLibDirs(opts.Getenv, config.ThisInstall()), ", ")
		c.Fix = fixORT
		if d := opts.Getenv(embed.EnvORTLibDir); d != "" {
			c.Detail = fmt.Sprintf("%s=%s holds no %s", embed.EnvORTLibDir, d, embed.ORTLibName)
			c.Fix = "point " + embed.EnvORTLibDir + " at the directory that holds it, or unset it to use the one installed with cmdai; " + fixORT
		}
	} else {
		c.Path = filepath.Join(dir, embed.ORTLibName)
		v, err := probeORT(dir)
		if err != nil {
			c.Status, c.Detail, c.Fix = StatusBad, err.Error(), fixORT
		} else {
			c.Status, c.Version, c.Detail = StatusOK, v, "loads"
		}
	}
	if opts.Model.Backend == embed.BackendGo && c.Status != StatusOK {
		c.Status, c.code = StatusWarning, 0 // not needed with --embed-backend go
	}
	return c
}

// probeORT loads the library, bounded by ortTimeout: a load that hangs
// is reported, not waited for (the process ends soon after anyway).
func probeORT(dir string) (string, error) {
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, _, err := embed.ProbeORT(dir)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && r.v == "" {
			r.v = "version unknown"
		}
		return r.v, r.err
	case <-time.After(ortTimeout):
		return "", fmt.Errorf("loading %s did not finish within %s", filepath.Join(dir, embed.ORTLibName), ortTimeout)
	}
}

func checkTokenizers() Component {
	name, version := embed.Tokenizers()
	return Component{Name: "tokenizers", Status: StatusOK, Version: version, Detail: name}
}

// checkModel verifies every file of the model a command would load
// against its manifest, and that the variant it would run is there.
func checkModel(opts *Options, ort Component) Component {
	c := Component{Name: "model", code: cmdutil.ExitVerification}
	dir, err := opts.ResolveModelDir(opts.Model.Dir)
	if err != nil {
		c.Status, c.Detail = StatusBad, err.Error()
		return c
	}
	c.Path = dir
	variant := opts.Model.Variant
	if variant == "" {
		variant = embed.VariantFP32
		if embed.ORTAvailable() && opts.Model.Backend != embed.BackendGo && ort.Status == StatusOK {
			variant = embed.DefaultVariant
		}
	}
	c.Version = embed.ModelName + " " + variant
	start := time.Now()
	m, err := embed.Verify(dir, variant)
	switch {
	case errors.Is(err, embed.ErrNoModel):
		c.Status, c.Detail, c.Fix = StatusMissing, "not installed", fixModelMissing
	case err != nil:
		c.Status, c.Detail, c.Fix = StatusBad, err.Error(), fixModelBad
	default:
		var variants []string
		for _, v := range []string{embed.VariantInt8, embed.VariantFP32} {
			if m.HasVariant(v) {
				variants = append(variants, v)
			}
		}
		c.Status = StatusOK
		c.Detail = fmt.Sprintf("%d files match their sha256 in %s (%d ms); variants: %s", len(m.Files), embed.ManifestFile, time.Since(start).Milliseconds(), strings.Join(variants, ", "))
		if dir == config.ThisInstall().ModelDir(embed.ModelName) {
			c.Detail += "; the one installed with cmdai"
		}
	}
	return c
}

// checkReranker verifies learned mode's reranker where queries look for
// it. It is optional: not installed is a warning (learned mode ranks
// without it); installed and damaged is bad (queries warn and go without
// it), but neither fails doctor.
func checkReranker(opts *Options) Component {
	c := Component{Name: "reranker", Version: embed.RerankerName}
	dir := opts.Model.Rerank.Dir
	if dir == "" {
		installed, err := config.ModelDir(opts.Getenv, embed.RerankerName)
		if err != nil {
			c.Status, c.Detail = StatusBad, err.Error()
			return c
		}
		dir = embed.PickModelDir(installed, config.ThisInstall().ModelDir(embed.RerankerName))
	}
	c.Path = dir
	start := time.Now()
	m, err := embed.VerifyReranker(dir, "")
	adapted := ""
	if err == nil {
		var a *adapter.Adapter
		if a, err = adapter.FromDir(dir, m.Dims); a != nil {
			adapted = ", with its query adapter"
		}
	}
	switch {
	case errors.Is(err, embed.ErrNoReranker):
		c.Status, c.Detail = StatusWarning, "not installed: learned mode ranks without it"
		c.Fix = "`cmdai model pull` (a release's model tarball carries it), or `make reranker install-model` in a cmdai checkout"
	case err != nil:
		c.Status, c.Detail = StatusBad, err.Error()
		c.Fix = "rebuild it (`make reranker`) and `cmdai model import` it again; until then queries warn and rank without it"
	default:
		c.Status = StatusOK
		c.Detail = fmt.Sprintf("%d files match their sha256 in %s%s (%d ms)", len(m.Files), embed.ManifestFile, adapted, time.Since(start).Milliseconds())
	}
	return c
}

// checkChroma finds the server and asks its version (--version, no
// server started), or, with --chroma-url, its heartbeat.
func checkChroma(ctx context.Context, opts *Options) Component {
	c := Component{Name: "chroma", code: cmdutil.ExitUnreachable}
	if url := opts.Chroma.URL; url != "" {
		c.Path = url
		if err := chroma.Answers(ctx, url); err != nil {
			c.Status, c.Detail = StatusMissing, fmt.Sprintf("no heartbeat from %s: %v", url, err)
			c.Fix = "start the server at that URL or correct it, or drop --chroma-url (and CMDAI_CHROMA_URL) to let cmdai start its own"
		} else {
			c.Status, c.Detail = StatusOK, "answers its heartbeat"
		}
		return c
	}
	bin, err := chroma.FindBin(opts.Chroma.Bin, opts.Getenv)
	if err != nil {
		c.Status, c.Fix = StatusMissing, fixChroma
		c.Detail = "no `chroma` executable in " + config.ThisInstall().ChromaBin() + ", the checkout's .tools, $CMDAI_TOOLS or PATH"
		if explicit := opts.Chroma.Bin; explicit != "" {
			c.Detail = explicit + " (--chroma-bin or CMDAI_CHROMA_BIN) is not an executable file"
		}
		return c
	}
	c.Path = bin
	v, err := chroma.BinVersion(ctx, bin)
	c.Version = v
	switch {
	case errors.Is(err, chroma.ErrUnsupportedVersion):
		c.Status, c.Detail, c.Fix = StatusBad, err.Error(), fixChroma
	case err != nil:
		c.Status, c.Detail = StatusWarning, "version unknown: "+err.Error()
		c.Fix = "cmdai is tested with chromadb " + chroma.ChromaVersion + ": " + fixChroma
	case v != chroma.CLIVersion:
		c.Status = StatusWarning
		c.Detail = fmt.Sprintf("cmdai is tested with chromadb %s, whose `chroma --version` says %s; this one may work", chroma.ChromaVersion, chroma.CLIVersion)
		c.Fix = fixChroma
	default:
		c.Status, c.Detail = StatusOK, "chromadb "+chroma.ChromaVersion+", the release cmdai is tested with"
	}
	return c
}

// checkIsolation says who can reach the private Chroma server this
// machine starts: only this user (its own network namespace, a socket in
// its 0700 data directory), or every local user (a loopback port: the
// kernel gives no user namespace, or the server is not run by lean.py),
// with what to do. A warning, not a failure: everything works, but
// another local user could read, rewrite or delete the index (rewrites
// are caught by the records' seal; a deletion is put back from the
// sealed local copy cmdai keeps then, ship.KeepCopy).
func checkIsolation(ctx context.Context, opts *Options, chromaComp Component) Component {
	c := Component{Name: "isolation", Status: StatusOK}
	if opts.Chroma.URL != "" {
		c.Detail = "not used with --chroma-url: who reaches that server is its own access control (a token: --chroma-token)"
		return c
	}
	if chromaComp.Status == StatusMissing || chromaComp.Path == "" {
		c.Detail = "no private server to check (see chroma)"
		return c
	}
	iso := chroma.CheckIsolation(ctx, chromaComp.Path)
	c.Detail = "the private Chroma server is reached by " + iso.String()
	if !iso.Isolated() {
		c.Status = StatusWarning
		c.Detail += "; cmdai keeps a sealed copy of the index and puts it back if it is deleted (rewrites are refused by the records' seal)"
		if os.Getenv(chroma.NoJailEnv) != "" {
			c.Fix = "unset " + chroma.NoJailEnv + "; then, if it stays, "
		}
		c.Fix += "allow unprivileged user namespaces (Debian: sysctl kernel.unprivileged_userns_clone=1; Ubuntu: kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for python3), use the Chroma cmdai installs (`make install`), or run Chroma where only you reach it and pass --chroma-url with a token"
	}
	return c
}

// checkLock says whether the private server's data directory is free.
func checkLock(opts *Options) Component {
	c := Component{Name: "data-lock"}
	if opts.Chroma.URL != "" {
		c.Status, c.Detail = StatusOK, "not used with --chroma-url"
		return c
	}
	dir, err := chromaDir(opts)
	if err != nil {
		c.Status, c.Detail = StatusWarning, err.Error()
		return c
	}
	c.Path = filepath.Join(dir, datalock.LockName)
	held, pid, who, err := datalock.Holder(dir)
	switch {
	case err != nil:
		c.Status, c.Detail = StatusWarning, err.Error()
	case held && heldByServe(dir):
		// serve lends its Chroma to every other command (issue 46: doctor
		// warned of the serve cmdai starts itself)
		c.Status = StatusOK
		c.Detail = fmt.Sprintf("held by %s, which lends it to the commands that write the index", who)
	case held:
		c.Status = StatusWarning
		c.Detail = fmt.Sprintf("held by %s: commands that write the index wait for it or exit 6", who)
		c.Fix = fmt.Sprintf("let it finish, or stop it (pid %d)", pid)
	default:
		c.Status, c.Detail = StatusOK, "free"
	}
	return c
}

// heldByServe tells whether dir's lock is held by a cmdai serve.
func heldByServe(dir string) bool {
	held, kind := datalock.HeldBy(dir)
	return held && kind == datalock.KindServe
}

// checkServe says which serve answers this data home's read commands:
// its pid, how it started, when it exits if idle and how to stop it; or
// that none runs and whether the next read command starts one. Never a
// failure: without a serve, commands answer one-shot; a warning when no
// serve could make its socket there (a read-only filesystem, another
// user's file in the way), as every answer then takes a second.
func checkServe(ctx context.Context, opts *Options) Component {
	c := Component{Name: "serve", Status: StatusOK}
	c.Path, _ = config.ServeSocket(opts.Getenv)
	c.Detail = opts.ServeState(ctx, opts.AutoServe.For(opts.Distro))
	if c.Path != "" && autostart.SocketUsable(c.Path) != nil {
		c.Status = StatusWarning
		c.Fix = "answers stay one-shot (about a second each) until XDG_RUNTIME_DIR names a directory of yours, or the file in the way is removed"
	}
	return c
}

func chromaDir(opts *Options) (string, error) {
	if opts.Chroma.DataDir != "" {
		return opts.Chroma.DataDir, nil
	}
	return config.ChromaDir(opts.Getenv)
}

// checkManDB looks for man and manpath, which the scan reads pages with.
func checkManDB(ctx context.Context) Component {
	c := Component{Name: "man-db"}
	man, err1 := exec.LookPath("man")
	manpath, err2 := exec.LookPath("manpath")
	if err1 != nil || err2 != nil {
		c.Status = StatusWarning
		c.Detail = "`man` or `manpath` not on PATH: only commands' --help output can be indexed"
		c.Fix = "`sudo apt install man-db` (Debian, Ubuntu), or your system's man-db package"
		return c
	}
	c.Path, c.Status, c.Detail = man, StatusOK, "manpath: "+manpath
	ctx, cancel := context.WithTimeout(ctx, manTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, man, "--version").Output(); err == nil {
		c.Version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	return c
}

// checkReleaseKey says whether downloads are signature-checked: they are
// when this build pins a release key.
func checkReleaseKey() Component {
	c := Component{Name: "release-key", Status: StatusOK}
	keys, err := packaging.PinnedKeys()
	switch {
	case err != nil:
		c.Status, c.Detail = StatusWarning, err.Error()
		c.Fix = "a cmdai from a release, or one built from a tree whose packaging/release-key.pub is intact"
	case len(keys) == 0:
		c.Detail = "none pinned in this build: downloads are checked against their published sha256 only (--public-key checks a release's signature)"
	default:
		ids := make([]string, len(keys))
		for i, k := range keys {
			ids[i] = k.ID()
		}
		c.Detail = "pinned: " + strings.Join(ids, ", ") + "; downloads must carry a valid signature"
	}
	return c
}

// exists reports whether path is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
