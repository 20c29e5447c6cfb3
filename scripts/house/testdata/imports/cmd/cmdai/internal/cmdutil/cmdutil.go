// What the command packages share; it imports below cmd/ only.
package cmdutil

import _ "example.com/fake/answer"
