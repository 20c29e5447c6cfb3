// Broken: below cmd/, importing cmd/. cmdx and another module's cmd/ are
// not cmd/.
package answer

import (
	_ "example.com/fake/cmd/cmdai/internal/cmdutil"
	_ "example.com/fake/cmdx"
	_ "example.org/other/cmd/tool"
)
