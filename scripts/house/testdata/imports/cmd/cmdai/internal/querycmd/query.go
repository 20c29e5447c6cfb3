// A command package: cmdutil and the rooms below cmd/ are fine.
package querycmd

import (
	_ "example.com/fake/answer"
	_ "example.com/fake/cmd/cmdai/internal/cmdutil"
)
