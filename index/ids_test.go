package index

import (
	"sort"
	"testing"
)

func TestLessIDPutsNumberedPartsInNumberOrder(t *testing.T) {
	ids := []string{"tar.1#EXAMPLES#10", "tar.1#OPTIONS#-x", "tar.1#EXAMPLES#2", "tar.1#EXAMPLES", "tar.1#DESCRIPTION#3"}
	sort.Slice(ids, func(i, j int) bool { return LessID(ids[i], ids[j]) })
	want := []string{"tar.1#DESCRIPTION#3", "tar.1#EXAMPLES", "tar.1#EXAMPLES#2", "tar.1#EXAMPLES#10", "tar.1#OPTIONS#-x"}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("order %v, want %v", ids, want)
		}
	}
}
