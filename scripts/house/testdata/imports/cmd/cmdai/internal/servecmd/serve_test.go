// Broken in a test file too.
package servecmd

import _ "example.com/fake/cmd/cmdai/internal/explaincmd"
