//go:build !unix

package diskspace

import "errors"

// Free fails: free space is not asked for on this system.
func Free(string) (int64, string, error) {
	return 0, "", errors.New("free space unknown on this system")
}
