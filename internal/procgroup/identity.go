package procgroup

import "os"

// Same reports whether pid is still the process that had start time
// start (StartTime) when it was recorded: false once that process has
// ended, even when its pid now belongs to another (a pid reused after a
// reboot, a container restart or a long uptime). A start of 0 (not
// recorded, or a record written by an older cmdai), or a system where
// start times cannot be read, falls back to Alive, which a reused pid
// fools.
func Same(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if start == 0 {
		return Alive(pid)
	}
	if now, ok := StartTime(pid); ok {
		return now == start
	}
	if _, ok := StartTime(os.Getpid()); ok {
		return false // start times can be read here: pid is gone
	}
	return Alive(pid)
}
