package doctorcmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/index"
)

// chromaDB is the file a private server keeps its collections in: no
// such file, no index built yet, and no server is started to say so.
const chromaDB = "chroma.sqlite3"

// checkIndex reads this distribution's collection: present, complete,
// how many records, and whether the model it was built with is the one
// installed. No index yet is a warning, not a failure: a new install
// has none until `cmdai index init`.
func checkIndex(ctx context.Context, opts *Options, chromaC, lock, model Component) Component {
	c := Component{Name: "index", code: cmdutil.ExitNoIndex}
	info, err := cmdutil.ResolveDistro(ctx, opts.Distro, opts.DetectDistro)
	if err != nil {
		c.Status, c.Detail = StatusWarning, err.Error()
		return c
	}
	name := info.CollectionName()
	c.Path = name
	if chromaC.Status == StatusMissing || chromaC.Status == StatusBad {
		c.Status, c.Detail = StatusWarning, "not checked: Chroma is not usable (see chroma)"
		return c
	}
	if opts.Chroma.URL == "" {
		dir, err := chromaDir(opts)
		if err != nil || !exists(filepath.Join(dir, chromaDB)) {
			c.Status, c.Detail, c.Fix = StatusWarning, "no index yet", fixInit
			return c
		}
	}
	ctx, cancel := context.WithTimeout(ctx, indexTimeout)
	defer cancel()
	ro := opts.Chroma
	ro.ReadOnly = true // doctor writes nothing: serve's queries go on
	conn, err := opts.Connect(ctx, ro)
	if err != nil {
		if cmdutil.ExitCode(err) == cmdutil.ExitBusy {
			c.Status, c.Detail = StatusWarning, "not checked: "+err.Error()
			return c
		}
		c.Status, c.code, c.Detail = StatusBad, cmdutil.ExitUnreachable, err.Error()
		c.Fix = "see the chroma line; `cmdai index status` shows the server's log"
		return c
	}
	defer conn.Close()
	coll, err := conn.OpenCollection(ctx, name)
	if errors.Is(err, chroma.ErrNoCollection) {
		c.Status, c.Detail, c.Fix = StatusWarning, "no index yet for "+info.ID+" on "+conn.URL, fixInit
		return c
	}
	if err != nil {
		c.Status, c.code, c.Detail = StatusBad, cmdutil.ExitUnreachable, err.Error()
		return c
	}
	return describeIndex(ctx, c, coll, model)
}

func describeIndex(ctx context.Context, c Component, coll *chroma.Collection, model Component) Component {
	if err := coll.MetadataErr(); err != nil {
		// nothing it says (state, model, counts) can be trusted
		c.Status, c.code, c.Detail, c.Fix = StatusBad, cmdutil.ExitVerification, index.MetadataFailure(err), index.RebuildHint
		return c
	}
	meta := index.ParseMeta(coll.Metadata())
	n, err := coll.Count(ctx)
	switch {
	case err != nil:
		c.Status, c.code, c.Detail = StatusBad, cmdutil.ExitUnreachable, err.Error()
		return c
	case !meta.Complete:
		c.Status, c.Detail, c.Fix = StatusBad, "incomplete: its build was interrupted", "`cmdai index init` finishes it"
		return c
	case n == 0:
		c.Status, c.Detail, c.Fix = StatusBad, "empty", fixInit
		return c
	}
	c.Version = meta.ToolVersion
	c.Detail = fmt.Sprintf("%d records, %d commands, built %s with %s %s (sha256 %.12s)", n, meta.Commands, meta.BuiltAt.Format("2006-01-02 15:04"), meta.Model, meta.ModelVariant, meta.ModelSHA256)
	c.Status = StatusOK
	start := time.Now()
	v, err := answer.CheckIndex(ctx, coll, true) // every record, and their count
	if v != nil {
		c.Detail += fmt.Sprintf("; every record checked against its authenticator in %.1f s", time.Since(start).Seconds())
	}
	if err != nil {
		c.Status, c.code, c.Detail = StatusBad, cmdutil.ExitUnreachable, err.Error()
		return c
	} else if v != nil && (v.Failed() > 0 || v.CountMismatch()) {
		c.Status, c.code = StatusBad, cmdutil.ExitVerification
		c.Detail += "; " + v.Summary()
		c.Fix = index.RebuildHint
		return c
	}
	if meta.Unsigned {
		// no fault of this machine's, and it answers: a warning
		c.Status = StatusWarning
		c.Detail += "; UNSIGNED: imported without a verified signature (" + meta.ImportedFrom + ")"
		c.Fix = "rebuild it here with `cmdai index init --force`, or import a signed release (`cmdai index download`)"
	}
	if model.Status != StatusOK {
		return c
	}
	if m, err := embed.ReadManifest(model.Path); err == nil && m.ModelSHA256(meta.ModelVariant) != meta.ModelSHA256 {
		c.Status, c.code = StatusBad, cmdutil.ExitVerification
		c.Detail += fmt.Sprintf("; the installed model's %s is %.12s: queries are refused", meta.ModelVariant, m.ModelSHA256(meta.ModelVariant))
		c.Fix = "install the model the index was built with (`cmdai model import`), or rebuild it: `cmdai index clear --confirm && cmdai index init`"
	}
	return c
}
