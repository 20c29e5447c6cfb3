// Broken: a command package imports another (twice, one line reported).
package servecmd

import (
	_ "example.com/fake/cmd/cmdai/internal/cmdutil"
	_ "example.com/fake/cmd/cmdai/internal/querycmd"
)
