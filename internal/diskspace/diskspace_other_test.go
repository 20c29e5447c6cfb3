//go:build !unix

package diskspace

import "testing"

// Where free space is not asked for, Free says so: callers skip the check
// rather than refuse a build.
func TestFreeUnknown(t *testing.T) {
	if _, _, err := Free(t.TempDir()); err == nil {
		t.Error("Free succeeded on a system it does not know")
	}
}
