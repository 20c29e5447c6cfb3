//go:build !unix

package chroma

import "errors"

func diskFree(string) (int64, string, error) {
	return 0, "", errors.New("free space unknown on this system")
}
