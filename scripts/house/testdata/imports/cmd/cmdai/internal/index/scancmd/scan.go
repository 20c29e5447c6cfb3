// Kept: a command package in a plain directory (index/, no Go files of
// its own) imports cmdutil.
package scancmd

import _ "example.com/fake/cmd/cmdai/internal/cmdutil"
