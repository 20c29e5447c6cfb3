// A package below a command belongs to it: importing its command is fine.
package format

import _ "example.com/fake/cmd/cmdai/internal/querycmd"
