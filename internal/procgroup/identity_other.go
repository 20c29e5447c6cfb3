//go:build !linux

package procgroup

// StartTime cannot be read without /proc: ok is always false, and
// callers judge a pid by Alive alone.
func StartTime(int) (uint64, bool) { return 0, false }
