package requests

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/search/evaluate"
)

// The rules of the set (README.md). The NL2Bash overlap rule is checked by
// scripts/research/check-own-requests.py: the corpus is not in the repository.
const (
	ownFile        = "requests-own.jsonl"
	trainFile      = "requests-train.jsonl"
	maxNamingShare = 0.10
	// maxJaccard is how close (Jaccard of normalised word sets) a train
	// request may come to a test request.
	maxJaccard = 0.8
)

// requestSet is one file of requests and its size rules.
type requestSet struct {
	file                       string
	maxPerCommand, minRequests int
	minCommands                int
}

// sets are the test set (README: never tuned on) and the train set
// (learned mode's weights are fitted on it, with NL2Bash's train part).
var sets = []requestSet{
	{file: ownFile, maxPerCommand: 8, minRequests: 250, minCommands: 100},
	{file: trainFile, maxPerCommand: 4, minRequests: 400, minCommands: 200},
}

// TestOwnRequestsParse reads the set the way `index eval --queries` does,
// and insists on the keys the README documents: "query" and "command",
// and optionally "options", the options the request needs (a list of
// option spellings such as "-x" or "+L", each without spaces). Any other
// key is refused.
func TestOwnRequestsParse(t *testing.T) {
	for _, set := range sets {
		t.Run(set.file, func(t *testing.T) { checkParse(t, set) })
	}
}

func checkParse(t *testing.T, set requestSet) {
	qs, err := evaluate.ReadEvalQueries(set.file)
	if err != nil {
		t.Fatalf("index eval could not read the set: %v", err)
	}
	if len(qs) < set.minRequests {
		t.Errorf("%d requests, the set needs at least %d", len(qs), set.minRequests)
	}
	for i, line := range lines(t, set.file) {
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want := 2
		if _, ok := raw["options"]; ok {
			want = 3
			if err := checkOptions(raw["options"]); err != "" {
				t.Errorf("line %d: options: %s, got %s", i+1, err, line)
			}
		}
		if len(raw) != want || raw["query"] == nil || raw["command"] == nil {
			t.Errorf("line %d: want {\"query\", \"command\"} and optionally \"options\", got %s", i+1, line)
		}
	}
}

// checkOptions says what is wrong with an "options" value ("" when
// nothing): it must be a list (possibly empty) of strings, each an option
// spelling that starts with "-" or "+" and holds no spaces.
func checkOptions(v any) string {
	list, ok := v.([]any)
	if !ok {
		return "want a list of strings"
	}
	for _, o := range list {
		s, ok := o.(string)
		if !ok {
			return "want a list of strings"
		}
		if len(s) < 1 || (s[0] != '-' && s[0] != '+') || strings.ContainsAny(s, " \t\n") {
			return fmt.Sprintf("%q is not an option spelling (starts with - or +, no spaces)", s)
		}
	}
	return ""
}

// TestRequestsCarryOptions: every line of both files says which options
// its request needs ("options", possibly empty), so that the flag figures
// cover the whole set.
func TestRequestsCarryOptions(t *testing.T) {
	for _, set := range sets {
		t.Run(set.file, func(t *testing.T) {
			for i, line := range lines(t, set.file) {
				var raw map[string]any
				if err := json.Unmarshal([]byte(line), &raw); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if v, ok := raw["options"]; !ok || v == nil {
					t.Errorf("line %d: no \"options\" list (write [] when the request needs none): %s", i+1, line)
				}
			}
		})
	}
}

func TestCheckOptions(t *testing.T) {
	for _, c := range []struct {
		json string
		ok   bool
	}{
		{`[]`, true},
		{`["-x", "-z", "-f", "-C"]`, true},
		{`["+L", "--include", "--"]`, true},
		{`"-a"`, false},
		{`[1]`, false},
		{`["a"]`, false},
		{`[""]`, false},
		{`["-n 5"]`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.json), &v); err != nil {
			t.Fatal(err)
		}
		if got := checkOptions(v) == ""; got != c.ok {
			t.Errorf("checkOptions(%s) ok = %v, want %v", c.json, got, c.ok)
		}
	}
}

// TestOwnRequestsSpread checks no duplicates, at most 8 requests per
// command and at least 100 commands, so one command cannot decide the
// figures.
func TestOwnRequestsSpread(t *testing.T) {
	for _, set := range sets {
		t.Run(set.file, func(t *testing.T) { checkSpread(t, set) })
	}
}

func checkSpread(t *testing.T, set requestSet) {
	qs := read(t, set.file)
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
		if n > set.maxPerCommand {
			t.Errorf("command %s has %d requests, at most %d", c, n, set.maxPerCommand)
		}
	}
	if len(per) < set.minCommands {
		t.Errorf("%d commands, the set needs at least %d", len(per), set.minCommands)
	}
}

// TestOwnRequestsRarelyNameTheCommand keeps requests that name their own
// command (too easy) to 10 % at most, and all at the end of the file so
// that they can be left out of a figure.
func TestOwnRequestsRarelyNameTheCommand(t *testing.T) {
	for _, set := range sets {
		t.Run(set.file, func(t *testing.T) { checkNaming(t, read(t, set.file)) })
	}
}

// TestTrainRequestsAreNotTestRequests: no train request equals or nearly
// equals a test request (Jaccard of normalised word sets below 0.8), so
// fitting on the train set does not fit the test set.
func TestTrainRequestsAreNotTestRequests(t *testing.T) {
	test := read(t, ownFile)
	for _, tr := range read(t, trainFile) {
		a := wordSet(tr.Text())
		for _, te := range test {
			if j := jaccard(a, wordSet(te.Text())); j >= maxJaccard {
				t.Errorf("train request %q is %.2f alike a test request", tr.Text(), j)
			}
		}
	}
}

// wordSet is the request's lower-cased letters-and-digits words, as
// scripts/research/check-own-requests.py normalises them.
func wordSet(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func checkNaming(t *testing.T, qs []evaluate.EvalQuery) {
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

func read(t *testing.T, file string) []evaluate.EvalQuery {
	t.Helper()
	qs, err := evaluate.ReadEvalQueries(file)
	if err != nil {
		t.Fatalf("reading the set: %v", err)
	}
	return qs
}

// lines returns the file's non-blank lines.
func lines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
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
