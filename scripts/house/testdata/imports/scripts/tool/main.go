// Broken: scripts are outside cmd/ too.
package main

import _ "example.com/fake/cmd/cmdai/internal/querycmd"

func main() {}
