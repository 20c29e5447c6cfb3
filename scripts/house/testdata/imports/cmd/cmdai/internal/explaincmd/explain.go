// Broken: a package below another command is still that command.
package explaincmd

import _ "example.com/fake/cmd/cmdai/internal/querycmd/format"
