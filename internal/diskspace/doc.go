// Package diskspace tells how many bytes an unprivileged writer can still
// put on the file system holding a directory, and where that file system
// is mounted (for messages that name the disk to clean).
package diskspace
