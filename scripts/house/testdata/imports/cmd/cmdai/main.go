// The root command may import every command package: it is their caller.
package main

import (
	_ "example.com/fake/cmd/cmdai/internal/cmdutil"
	_ "example.com/fake/cmd/cmdai/internal/querycmd"
	_ "example.com/fake/cmd/cmdai/internal/servecmd"
)

func main() {}
