package index

import "strings"

// LessID orders record ids in page order: a numbered part follows its
// section in number order ("X#EXAMPLES#2" before "X#EXAMPLES#10"). Option ids carry
// the flag, not the page position, so options come in flag order.
func LessID(a, b string) bool {
	pa, na := splitPart(a)
	pb, nb := splitPart(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitPart(id string) (string, int) {
	i := strings.LastIndex(id, "#")
	if i < 0 {
		return id, 0
	}
	n := 0
	for _, r := range id[i+1:] {
		if r < '0' || r > '9' {
			return id, 0
		}
		n = n*10 + int(r-'0')
	}
	return id[:i], n
}
