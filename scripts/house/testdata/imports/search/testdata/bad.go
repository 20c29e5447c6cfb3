// testdata is not code: not checked.
package bad

import _ "example.com/fake/cmd/cmdai/internal/querycmd"
