package cmdutil

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/ship"
)

// ChromaOptions are the --chroma-* flags' values: which Chroma a command
// uses (connect.Options, which Factory.Connect opens).
type ChromaOptions = connect.Options

// The headings the shared flags are listed under in help.
const (
	ChromaCategory = "CHROMA OPTIONS"
	ModelCategory  = "MODEL OPTIONS"
	ServeCategory  = "SERVE OPTIONS"
)

// ChromaFlags are the --chroma-* flags of every command that uses Chroma.
// They are listed under their own heading in each command's help, after
// the command's own flags.
func ChromaFlags(o *ChromaOptions) []cli.Flag {
	return clix.WithCategory(ChromaCategory,
		&cli.StringFlag{Name: "chroma-url", Usage: "use the Chroma server at `URL` (default: start a private one only you can reach)", EnvVars: []string{"CMDAI_CHROMA_URL"}, Destination: &o.URL},
		&cli.StringFlag{Name: "chroma-tenant", Usage: "Chroma `TENANT` (with --chroma-url)", EnvVars: []string{"CMDAI_CHROMA_TENANT"}, Destination: &o.Tenant},
		&cli.StringFlag{Name: "chroma-database", Usage: "Chroma `DATABASE` (with --chroma-url)", EnvVars: []string{"CMDAI_CHROMA_DATABASE"}, Destination: &o.Database},
		&cli.StringFlag{Name: "chroma-token", Usage: "auth `TOKEN` for --chroma-url", EnvVars: []string{"CMDAI_CHROMA_TOKEN"}, Destination: &o.Token},
		&cli.StringFlag{Name: "chroma-token-header", Usage: "send the token as `HEADER`: Authorization (Bearer) or X-Chroma-Token", Value: "Authorization", EnvVars: []string{"CMDAI_CHROMA_TOKEN_HEADER"}, Destination: &o.TokenHeader},
		&cli.StringFlag{Name: "chroma-bin", Usage: "`PATH` of the chroma executable for the private server", EnvVars: []string{"CMDAI_CHROMA_BIN"}, Destination: &o.Bin},
		&cli.StringFlag{Name: "chroma-data", Usage: "data `DIR` of the private server (default: ~/.local/share/cmdai/chroma)", EnvVars: []string{"CMDAI_CHROMA_DATA"}, Destination: &o.DataDir},
	)
}

// connect is the real Connect: connect.Open with the records' key, the
// private server's data directory by default, and a running serve's
// server under its lease when serve owns that directory.
func (f *Factory) connect(ctx context.Context, o ChromaOptions) (*connect.Connection, error) {
	key, err := f.RecordKey()
	if err != nil {
		return nil, err
	}
	if o.URL == "" && o.DataDir == "" {
		if o.DataDir, err = config.ChromaDir(f.Getenv); err != nil {
			return nil, err
		}
	}
	conn, err := connect.Open(ctx, o, connect.Env{Auth: key, Getenv: f.Getenv, Lease: f.serveLease})
	if dir, derr := config.CopyDir(f.getenv()); err == nil && derr == nil && conn.OwnsDataDir() {
		// its index, deleted behind cmdai's back, is put back from the
		// copy kept while others could reach it (KeepCopy)
		conn.Store.SetRestorer(ship.Restorer(key, dir, f.Say))
	}
	return conn, err
}
