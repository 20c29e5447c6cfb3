// Package procgroup starts a child process at the head of a process group
// of its own and signals that whole group, so that nothing the child
// spawned outlives it; it also tells whether a process still runs.
//
// The Chroma server and `cmd --help` runs both need this: one place
// holds the platform details (setpgid or setsid, the parent-death signal,
// kill(-pgid)).
package procgroup
