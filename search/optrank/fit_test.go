package optrank

import (
	"slices"
	"testing"
)

// Fit keeps everything that fits, else drops from the end of the command
// keeping the most past its Favor, never a command's first record.
func TestFitKeepsTheFirstCommandsRecordsLongest(t *testing.T) {
	hundreds := func(n int) []int { return slices.Repeat([]int{100}, n) }
	sizes := [][]int{hundreds(8), hundreds(3), hundreds(3), hundreds(2), hundreds(1)}
	if got := Fit(sizes, 1700); !slices.Equal(got, []int{8, 3, 3, 2, 1}) {
		t.Errorf("Fit within a budget all fit: %v, want all kept", got)
	}
	// 1,000 bytes: 10 records of 17; the first command's Favor (3) and the
	// second's (1) keep them longer than the others
	got := Fit(sizes, 1000)
	if total := got[0] + got[1] + got[2] + got[3] + got[4]; total != 10 {
		t.Fatalf("Fit(1000): %v keeps %d records of 100 bytes, want 10", got, total)
	}
	if got[0] <= got[1] || got[1] < got[2] || got[4] != 1 {
		t.Errorf("Fit(1000): %v, want the first command to keep the most, the second no fewer than the third", got)
	}
	// a budget nothing fits: every command keeps its first
	if got := Fit(sizes, 10); !slices.Equal(got, []int{1, 1, 1, 1, 1}) {
		t.Errorf("Fit(10): %v, want one each", got)
	}
	if got := Fit(nil, 10); len(got) != 0 {
		t.Errorf("Fit(nil): %v", got)
	}
}
