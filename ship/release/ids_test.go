package release

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestPublishedIDsMatchTheWorkflow: the list completion offers is the one
// the release workflow builds.
func TestPublishedIDsMatchTheWorkflow(t *testing.T) {
	b, err := os.ReadFile("../../.github/workflows/build-indexes.yml")
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, m := range regexp.MustCompile(`(?m)^\s*-\s*\{?\s*distro:\s*([a-z0-9.-]+)`).FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains(built, m[1]) {
			built = append(built, m[1])
		}
	}
	slices.Sort(built)
	if !slices.Equal(built, PublishedIDs) {
		t.Errorf("the workflow builds %q; PublishedIDs are %q", built, PublishedIDs)
	}
}
