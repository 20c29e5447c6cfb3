// Package helprun runs `cmd --help` for commands without a man page as
// safely as a child process can be run: a deny list that judges what a
// file is, not what it is called (its identity through hard links and
// symlinks, shells, interpreters, local scripts), no terminal, no stdin,
// a throwaway HOME, a minimal environment, a timeout and an output cap,
// and the whole process group killed when it is given up on. Only the
// user's own `index init`/`scan --help-fallback` (and a build over an
// index that holds commands read so) use it: never a request.
package helprun
