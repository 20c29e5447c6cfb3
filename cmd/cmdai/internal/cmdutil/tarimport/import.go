// Package tarimport is what `cmdai index import` and `cmdai index download`
// both run once they hold a tarball: check its signature and sums, ask
// about another distribution's index, make one call into ship, and print.
// It lives in cmdutil, not in either command, because no command package
// imports another.
package tarimport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/afterwrite"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/internal/termbar"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship"
	"github.com/cmdai/cmdai/ship/release"
)

// Options are the inputs of an import: `cmdai index import`'s flags, or
// those `cmdai index download` passes on.
type Options struct {
	*cmdutil.Factory
	Path      string
	Validate  bool
	Distro    string
	Yes       bool
	JSON      bool
	BatchMode bool
	Chroma    cmdutil.ChromaOptions
	ModelDir  string
	// PublicKey is --public-key: a release key trusted beside the pinned.
	PublicKey string
	// RequireSignature refuses a tarball whose checksums are not signed.
	RequireSignature bool
	// AllowUnsigned imports a tarball that no signature this cmdai
	// verified vouches for (else refused, exit 5); the index is then
	// marked unsigned (index.Meta.Unsigned) until rebuilt here.
	AllowUnsigned bool
	// WriteBatch bounds each upsert (0: the server's maximum).
	WriteBatch int
	// Expect, when set, is the distribution the tarball must hold
	// (download asked for it by name).
	Expect string
}

// Result is what `index import --json` (and `index download --json`)
// prints.
type Result struct {
	Path       string `json:"path"`
	Collection string `json:"collection"`
	Distro     string `json:"distro"`
	Records    int    `json:"records_count"`
	Commands   int    `json:"commands_count"`
	Validated  bool   `json:"validated_only"`
	Checksums  string `json:"checksums"`
	// SignedBy is the key that signed Checksums ("" when not signed).
	SignedBy string `json:"signed_by"`
	// Unsigned: no verified signature vouched for it (--allow-unsigned);
	// the index is marked so (index.Meta.Unsigned).
	Unsigned bool    `json:"unsigned"`
	Seconds  float64 `json:"seconds"`
}

// Run imports the tarball at opts.Path: verified, then loaded into a
// temporary collection that replaces the index only when complete.
func Run(ctx context.Context, opts *Options) error {
	start := time.Now()
	if st, err := os.Stat(opts.Path); err != nil || st.IsDir() {
		return fmt.Errorf("import: %s is not a tarball to import (want the chroma-index-<distro>.tar.gz that `cmdai index export` or a release made)", opts.Path)
	}
	keys, err := cmdutil.TrustedKeys(opts.PublicKey)
	if err != nil {
		return err
	}
	if opts.RequireSignature && len(keys) == 0 {
		return cmdutil.UsageError("--require-signature: this build pins no release key to check a signature with: pass the release's public key with --public-key")
	}
	beside, err := ship.VerifyBeside(opts.Path, ship.Trust{Keys: keys, Require: opts.RequireSignature})
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitVerification, err)
	}
	sums := beside.Sums
	unsigned := beside.Signed == nil
	if unsigned && !opts.Validate {
		if !opts.AllowUnsigned {
			return cmdutil.WithCode(cmdutil.ExitVerification, fmt.Errorf("import: %s comes without a signature this cmdai verified (%s): whoever could write the file could have written its records. If you trust where it came from (your own export, a mirror you keep), pass --allow-unsigned: `cmdai index status` then marks the index unsigned until `cmdai index init --force` rebuilds it here",
				opts.Path, unsignedWhy(opts.Path, beside)))
		}
		if !opts.JSON { // --json says so in its result
			fmt.Fprintf(opts.IO.ErrOut, "warning: importing %s unsigned, as --allow-unsigned asks (%s): the index is marked unsigned until `cmdai index init --force` rebuilds it here\n", opts.Path, unsignedWhy(opts.Path, beside))
		}
	}
	if !opts.JSON {
		switch {
		case beside.Signed != nil:
			fmt.Fprintf(opts.IO.ErrOut, "signature: %s signed by key %s (%s)\n", sums, beside.Signed.KeyID, beside.Signed.TrustedComment)
		case beside.Unchecked != "":
			fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", beside.Unchecked)
		case sums == "":
			fmt.Fprintf(opts.IO.ErrOut, "note: no %s or checksums.txt beside %s: only the checksums inside the tarball are checked\n", filepath.Base(opts.Path)+packaging.ChecksumSuffix, opts.Path)
		}
	}
	here, _ := cmdutil.ResolveDistro(ctx, "", opts.DetectDistro)
	var (
		conn       *connect.Connection
		connectErr error
	)
	fo := ship.FileOptions{Check: check(opts, here), Validate: opts.Validate, WriteBatch: opts.WriteBatch, Progress: progress(opts),
		From: origin(opts.Path, beside, start), Unsigned: unsigned}
	fo.Connect = func(ctx context.Context, m packaging.Manifest) (*connect.Connection, error) {
		if conn, connectErr = opts.Connect(ctx, opts.Chroma); connectErr != nil {
			return nil, connectErr
		}
		return conn, conn.CheckSpace(m.Records, m.Model.Dims)
	}
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	// Every check the manifest alone decides (format, model, distribution,
	// the question to ask) is made before a server starts: a call that
	// cannot go on fails at once, with its own exit code.
	m, target, err := ship.ImportFile(ctx, opts.Path, fo)
	if connectErr != nil {
		return connectErr
	}
	if err != nil {
		return failed(opts.Path, err)
	}
	if !opts.Validate {
		afterwrite.Run(ctx, opts.Factory, conn, target, opts.ForWriter(opts.BatchMode))
	}
	res := Result{Path: opts.Path, Collection: target, Distro: m.Distro, Records: m.Records, Commands: m.Commands,
		Validated: opts.Validate, Checksums: sums, Seconds: time.Since(start).Seconds(), Unsigned: unsigned}
	if beside.Signed != nil {
		res.SignedBy = beside.Signed.KeyID
	}
	if opts.JSON {
		return jsonout.Encode(opts.IO.Out, res)
	}
	if opts.Validate {
		fmt.Fprintf(opts.IO.Out, "valid: %s holds %s's index (%d records, %d commands, %s %s), built %s\n",
			opts.Path, m.Distro, m.Records, m.Commands, m.Model.Name, m.Model.Variant, m.BuiltAt.Format(time.RFC3339))
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "imported %s into %s on %s (%d records, %d commands) in %.1fs\n", opts.Path, target, conn.URL, m.Records, m.Commands, res.Seconds)
	return nil
}

// unsignedWhy says why no signature vouches for the tarball at path.
func unsignedWhy(path string, b ship.Beside) string {
	switch {
	case b.Unchecked != "":
		return b.Unchecked
	case b.Sums != "":
		return fmt.Sprintf("its checksums, %s, are not signed: no %s stands beside them", b.Sums, release.ChecksumsName+packaging.SignatureSuffix)
	}
	return fmt.Sprintf("no checksums stand beside it (%s or a signed checksums.txt)", filepath.Base(path)+packaging.ChecksumSuffix)
}

// origin is what the index's metadata keeps of where it came from.
func origin(path string, b ship.Beside, at time.Time) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	switch {
	case b.Signed != nil:
		return fmt.Sprintf("%s, signed by key %s, imported %s", abs, b.Signed.KeyID, at.UTC().Format(time.RFC3339))
	case b.Sums != "":
		return fmt.Sprintf("%s, checked against %s (unsigned), imported %s", abs, b.Sums, at.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("%s, imported %s", abs, at.UTC().Format(time.RFC3339))
}

// check decides from the manifest whether the import goes on and
// into which collection; it runs before a server starts.
func check(opts *Options, here distro.Info) func(packaging.Manifest) (ship.Target, error) {
	return func(m packaging.Manifest) (ship.Target, error) {
		if opts.Expect != "" && m.Distro != opts.Expect {
			return ship.Target{}, cmdutil.WithCode(cmdutil.ExitVerification, fmt.Errorf("asked for %s's index, but the tarball holds %s's: the release location is mislabelled", opts.Expect, m.Distro))
		}
		dir, err := opts.ResolveModelDir(opts.ModelDir)
		if err != nil {
			return ship.Target{}, err
		}
		if err := ship.CheckModel(dir, m); err != nil {
			return ship.Target{}, err
		}
		target := distro.Info{OS: m.OS, ID: m.Distro}
		if opts.Distro != "" {
			info, err := distro.Parse(opts.Distro)
			if err != nil {
				return ship.Target{}, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--distro: %w", err))
			}
			target = info
		} else if here.ID != "" && here.ID != m.Distro && !opts.Yes && !opts.Validate {
			if err := confirmOtherDistro(opts, m, here); err != nil {
				return ship.Target{}, err
			}
		}
		name := target.CollectionName()
		if err := distro.ValidCollectionName(name); err != nil {
			return ship.Target{}, fmt.Errorf("distribution %q gives no valid collection name: %w (pass --distro ID)", target.ID, err)
		}
		return ship.Target{Collection: name, Distro: target.ID, OS: target.OS}, nil
	}
}

// failed gives a failed import its exit code and says that the
// previous index is unchanged.
func failed(path string, err error) error {
	switch {
	case cmdutil.HasCode(err):
		return err
	case errors.Is(err, ship.ErrVerification):
		return cmdutil.WithCode(cmdutil.ExitVerification, err)
	case errors.Is(err, packaging.ErrDamaged) || errors.Is(err, packaging.ErrHostile):
		return cmdutil.WithCode(cmdutil.ExitVerification, fmt.Errorf("%s: %w; the previous index is unchanged", path, err))
	}
	return fmt.Errorf("import %s: %w; the previous index is unchanged", path, err)
}

// progress is the import's progress bar, when one is wanted.
func progress(opts *Options) func(done, total int) {
	if opts.BatchMode || opts.JSON || !opts.IO.ErrTTY {
		return nil
	}
	bar := termbar.New(opts.IO.ErrOut, opts.IO.ErrWidth)
	return func(done, total int) {
		bar.Set(done, total, fmt.Sprintf("importing: %d/%d records", done, total), fmt.Sprintf("%d/%d", done, total))
		if done >= total {
			bar.Done()
		}
	}
}

// confirmOtherDistro asks before importing another distribution's index;
// without a terminal it says how to go on.
func confirmOtherDistro(opts *Options, m packaging.Manifest, here distro.Info) error {
	if !opts.IO.ErrTTY || opts.IO.In == nil {
		return cmdutil.UsageError("the tarball holds %s's index and this machine is %s: pass --yes to import it as %s's index (for machines of that distribution, or a shared server), or --distro %s to use it here",
			m.Distro, here.ID, m.Distro, here.ID)
	}
	fmt.Fprintf(opts.IO.ErrOut, "The tarball holds %s's index; this machine is %s. Import it as %s's index? [y/N] ", m.Distro, here.ID, m.Distro)
	line, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return errors.New("nothing imported")
	}
	return nil
}
