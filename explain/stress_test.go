package explain

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLongLinesAreQuick: lines near MaxLine of many shapes stay fast
// (nothing quadratic in the words, the commands or the nesting).
func TestLongLinesAreQuick(t *testing.T) {
	l := CachedLookup(fixtureLookup(nil))
	shapes := map[string]string{
		"pipes":    strings.Repeat("grep -c x f | ", 3000) + "cat",
		"words":    "tar " + strings.Repeat("-xzvf a ", 7000),
		"clusters": "ls -" + strings.Repeat("l", 60000),
		"subst":    strings.Repeat("echo $(", 500) + "ls" + strings.Repeat(")", 500),
		"find":     "find . " + strings.Repeat("-name x -o ", 5000),
		"exec":     "find . " + strings.Repeat("-exec ls {} \\; ", 3000),
		"aliases":  strings.Repeat("alias a='ls -l'; ", 3000),
		"wrappers": strings.Repeat("sudo env nice ", 4000) + "ls",
		"sh -c":    strings.Repeat("sh -c 'sh -c \"ls\"'; ", 2000),
		"long opt": "grep --" + strings.Repeat("e", 60000),
	}
	for name, line := range shapes {
		if len(line) > MaxLine {
			line = line[:MaxLine]
		}
		start := time.Now()
		_, err := Explain(context.Background(), line, l, Options{})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %v (err %v)", name, d, err)
		}
	}
}
