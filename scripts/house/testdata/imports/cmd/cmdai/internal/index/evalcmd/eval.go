// Broken: two command packages in the same plain directory (index/) are
// two commands all the same.
package evalcmd

import _ "example.com/fake/cmd/cmdai/internal/index/scancmd"
