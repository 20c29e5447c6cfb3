// The shared package must not import a command either: broken.
package cmdutil

import _ "example.com/fake/cmd/cmdai/internal/doccmd"
