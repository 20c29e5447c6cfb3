// Package modelcmd is `cmdai model`: status, import, pull and export of
// the embedding model. Each command parses its flags, makes one call into
// embed or ship, and prints.
package modelcmd

import (
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
)

// NewCmdModel is the `model` command group. Its commands' constructors
// take a runF, as every command's does: nil runs the command, a test's
// sees the parsed options.
func NewCmdModel(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "model",
		Usage: "install and inspect the embedding model (all-MiniLM-L6-v2)",
		Description: `cmdai embeds with all-MiniLM-L6-v2 on this machine's CPU. The model lives in
~/.local/share/cmdai/embeddings/all-MiniLM-L6-v2/ (XDG_DATA_HOME and CMDAI_HOME
move it) with a manifest of sha256s that is checked every time it loads.
When none is installed there, the one installed with cmdai is used
(<prefix>/share/cmdai/models/all-MiniLM-L6-v2/, beside <prefix>/bin/cmdai).

EXAMPLES:
   $ cmdai model status
   $ cmdai model export /media/usb/                # carry it across an air gap
   $ cmdai model import ./all-MiniLM-L6-v2.tar.gz   # air-gapped machines
   $ cmdai model pull                              # online machines`,
		Subcommands: []*cli.Command{
			newStatusCommand(f, nil),
			newImportCommand(f, nil),
			newPullCommand(f, nil),
			newExportCommand(f, nil),
		},
		OnUsageError: clix.OnUsageError,
		Action:       clix.GroupAction,
	}
}
