// Package scanner finds the commands installed on $PATH and the man page
// source that documents each of them, the way which(1) and man-db do, without
// running man per page.
package scanner
