package evaluate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nl2bashPart is scripts/research/nl2bash-queries.py's rule, written again here so
// that a change to the script that moves requests between train and
// test (and so leaks tuned requests into the reported figures) fails.
func nl2bashPart(request string) string {
	sum := sha256.Sum256([]byte("cmdai-split-v1:" + request))
	if binary.BigEndian.Uint64(sum[:8])%100 < 30 {
		return "test"
	}
	return "train"
}

// runSplit runs the script on dir and returns its queries.
func runSplit(t *testing.T, dir string, args ...string) []EvalQuery {
	t.Helper()
	cmd := exec.Command("python3", append([]string{"../../scripts/research/nl2bash-queries.py", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nl2bash-queries.py %v: %v (python3 is needed to make the split)", args, err)
	}
	var qs []EvalQuery
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var q EvalQuery
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		qs = append(qs, q)
	}
	return qs
}

// The NL2Bash split on a made-up corpus: the same input gives the same
// parts, train and test share no request, a duplicated request lands in
// one part once, every row is in the part the rule says, and the
// per-command cap holds within each part.
func TestNL2BashSplitIsStableAndDisjoint(t *testing.T) {
	dir := t.TempDir()
	var nl, cm []string
	for i := range 200 {
		cmd := []string{"find", "grep", "tar", "sed", "awk"}[i%5]
		nl = append(nl, fmt.Sprintf("request number %d about %s", i, cmd))
		cm = append(cm, fmt.Sprintf("sudo %s -x %d", cmd, i))
	}
	// duplicates: the same request twice, once with another command line
	nl = append(nl, "request number 7 about sed", "request number 7 about sed")
	cm = append(cm, "sed -n 7p", "/usr/bin/sed -n 7p")
	for name, lines := range map[string][]string{"all.nl": nl, "all.cm": cm} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parts := map[string][]EvalQuery{}
	for _, p := range []string{"train", "test"} {
		parts[p] = runSplit(t, dir, "--split", p, "--per-command", "0")
		again := runSplit(t, dir, "--split", p, "--per-command", "0")
		if fmt.Sprint(again) != fmt.Sprint(parts[p]) {
			t.Errorf("%s: a second run differs", p)
		}
		seen := map[string]bool{}
		for _, q := range parts[p] {
			if got := nl2bashPart(q.Query); got != p {
				t.Errorf("%q is in %s, the rule says %s", q.Query, p, got)
			}
			key := q.Query + "\t" + q.Command
			if seen[key] {
				t.Errorf("%s holds %q (%s) twice", p, q.Query, q.Command)
			}
			seen[key] = true
		}
	}
	train, test := parts["train"], parts["test"]
	inTrain := map[string]bool{}
	for _, q := range train {
		inTrain[q.Query] = true
	}
	for _, q := range test {
		if inTrain[q.Query] {
			t.Errorf("%q is in both parts", q.Query)
		}
	}
	// 200 distinct requests, plus "request number 7 about sed" twice with
	// the same command (sed): kept once
	if len(train)+len(test) != 201 || len(test) < 40 || len(test) > 80 {
		t.Errorf("train %d + test %d, want 201 with about 30 %% test", len(train), len(test))
	}
	capped := runSplit(t, dir, "--split", "test", "--per-command", "2")
	per := map[string]int{}
	for _, q := range capped {
		per[q.Command]++
	}
	if len(per) != 5 {
		t.Errorf("capped test part names %v, want all 5 commands", per)
	}
	for c, n := range per {
		if n != 2 {
			t.Errorf("capped test part holds %d requests for %s, want 2", n, c)
		}
	}
}
