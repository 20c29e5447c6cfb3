// Package helprun runs `cmd --help` for commands without a man page as
// safely as a child process can be run: a deny list, no terminal, no
// stdin, a throwaway HOME, a minimal environment, a timeout and an output
// cap, and the whole process group killed when it is given up on.
package helprun
