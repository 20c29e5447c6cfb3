//go:build linux

package procgroup

import (
	"bytes"
	"os"
	"strconv"
)

// StartTime is when process pid started, in clock ticks after boot
// (field 22 of /proc/<pid>/stat); ok false when it cannot be read (no
// such process, or no /proc). A pid the kernel hands out again goes to a
// process with another start time, so pid and start time together name
// one process for the machine's uptime, as a pid alone does not.
func StartTime(pid int) (start uint64, ok bool) {
	if pid <= 0 {
		return 0, false
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// the command name (field 2) is in parentheses and may hold spaces
	// and parentheses itself: the fields after it follow the last ')'
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(raw[i+1:])
	const starttime = 22 - 3 // fields[0] is field 3, the state
	if len(fields) <= starttime {
		return 0, false
	}
	start, err = strconv.ParseUint(string(fields[starttime]), 10, 64)
	return start, err == nil
}
