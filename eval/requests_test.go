package eval

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/search/evaluate"
)

// The rules of the set (README.md). The NL2Bash overlap rule is checked by
// scripts/check-own-requests.py: the corpus is not in the repository.
const (
	ownFile        = "requests-own.jsonl"
	maxPerCommand  = 8
	minRequests    = 250
	minCommands    = 100
	maxNamingShare = 0.10
)

// TestOwnRequestsParse reads the set the way `index eval --queries` does,
// and insists on the "query" key that the README documents.
func TestOwnRequestsParse(t *testing.T) {
	qs, err := evaluate.ReadEvalQueries(ownFile)
	if err != nil {
		t.Fatalf("index eval could not read the set: %v", err)
	}
	if len(qs) < minRequests {
		t.Errorf("%d requests, the set needs at least %d", len(qs), minRequests)
	}
	for i, line := range lines(t) {
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if len(raw) != 2 || raw["query"] == nil || raw["command"] == nil {
			t.Errorf("line %d: want exactly {\"query\", \"command\"}, got %s", i+1, line)
		}
	}
}

// TestOwnRequestsSpread checks no duplicates, at most 8 requests per
// command and at least 100 commands, so one command cannot decide the
// figures.
func TestOwnRequestsSpread(t *testing.T) {
	qs := read(t)
	seen := map[string]int{}
	per := map[string]int{}
	for i, q := range qs {
		key := strings.Join(strings.Fields(strings.ToLower(q.Text())), " ")
		if first, dup := seen[key]; dup {
			t.Errorf("request %d repeats request %d: %q", i+1, first, q.Text())
		}
		seen[key] = i + 1
		if strings.TrimSpace(q.Command) != q.Command || strings.ContainsAny(q.Command, " /") {
			t.Errorf("request %d: command %q must be a bare command name", i+1, q.Command)
		}
		per[q.Command]++
	}
	for c, n := range per {
		if n > maxPerCommand {
			t.Errorf("command %s has %d requests, at most %d", c, n, maxPerCommand)
		}
	}
	if len(per) < minCommands {
		t.Errorf("%d commands, the set needs at least %d", len(per), minCommands)
	}
}

// TestOwnRequestsRarelyNameTheCommand keeps requests that name their own
// command (too easy) to 10 % at most, and all at the end of the file so
// that they can be left out of a figure.
func TestOwnRequestsRarelyNameTheCommand(t *testing.T) {
	qs := read(t)
	naming, firstNaming := 0, -1
	for i, q := range qs {
		if namesCommand(q.Text(), q.Command) {
			naming++
			if firstNaming < 0 {
				firstNaming = i
			}
		} else if firstNaming >= 0 {
			t.Errorf("request %d (%q) follows one that names its command: naming requests come last", i+1, q.Text())
		}
	}
	if float64(naming) > maxNamingShare*float64(len(qs)) {
		t.Errorf("%d of %d requests name their command, at most %.0f %%", naming, len(qs), 100*maxNamingShare)
	}
}

func TestNamesCommand(t *testing.T) {
	for _, c := range []struct {
		query, command string
		want           bool
	}{
		{"how do I use tar to pull out one file", "tar", true},
		{"git: see what changed", "git", true},
		{"demangle c++filt output", "c++filt", true},
		{"extract backup.tgz into /opt", "tar", false},
		{"order lines alphabetically", "sort", false},
		{"make a list of sorted files", "sort", false},
	} {
		if got := namesCommand(c.query, c.command); got != c.want {
			t.Errorf("namesCommand(%q, %q) = %v, want %v", c.query, c.command, got, c.want)
		}
	}
}

// namesCommand says whether the command's name is one of the request's
// words; the words keep the characters names use (c++filt, mkfs.ext4).
func namesCommand(query, command string) bool {
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if strings.Trim(w, ".,:;!?\"'()") == strings.ToLower(command) {
			return true
		}
	}
	return false
}

func read(t *testing.T) []evaluate.EvalQuery {
	t.Helper()
	qs, err := evaluate.ReadEvalQueries(ownFile)
	if err != nil {
		t.Fatalf("reading the set: %v", err)
	}
	return qs
}

// lines returns the file's non-blank lines.
func lines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(ownFile)
	if err != nil {
		t.Fatalf("reading the set: %v", err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
