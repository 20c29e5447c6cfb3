package explain

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// answerBytes explains line by the fixtures and gives its answer's size
// as JSON.
func answerBytes(t *testing.T, line string) int {
	t.Helper()
	r, err := Explain(context.Background(), line, CachedLookup(fixtureLookup(nil)), Options{})
	if err != nil {
		t.Fatalf("%.60s...: %v", line, err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestAnswerGrowsLinearly (issue 30, finding 2): doubling a hostile
// shape at most doubles its answer, and no byte of the line costs more
// than a few hundred of answer. On c849cec each nested command repeated
// the whole text it held (a word's text, a dynamic command's name), and
// a long subcommand word or alias name was repeated in every later
// word's note or via: 21,800 nested $( gave a 715 MB answer.
func TestAnswerGrowsLinearly(t *testing.T) {
	shapes := map[string]func(n int) string{
		"$(":       func(n int) string { return strings.Repeat("$(", n) + "ls -l" + strings.Repeat(")", n) },
		"<(":       func(n int) string { return strings.Repeat("ls <(", n) + "ls" + strings.Repeat(")", n) },
		"echo $(":  func(n int) string { return strings.Repeat(`echo "$(`, n) + "ls" + strings.Repeat(`)"`, n) },
		"`":        func(n int) string { return "echo " + strings.Repeat("$(echo `ls` ", n) + strings.Repeat(")", n) },
		"git note": func(n int) string { return "git " + strings.Repeat("s", 100*n) + strings.Repeat(" --zz", 20*n) },
		"alias": func(n int) string {
			return "alias " + strings.Repeat("a", 100*n) + "='" + strings.Repeat("ls;", 20*n) + "'"
		},
		"sh -c": func(n int) string { return "sh -c '" + strings.Repeat("$(", n) + "ls" + strings.Repeat(")", n) + "'" },
	}
	for name, shape := range shapes {
		small, big := shape(30), shape(60)
		a, b := answerBytes(t, small), answerBytes(t, big)
		if float64(b) > 2.3*float64(a) {
			t.Errorf("%s: %d B of answer for %d B of line, %d B for %d B: grows faster than the line", name, a, len(small), b, len(big))
		}
		if b > 300*len(big) {
			t.Errorf("%s: %d B of answer for a %d B line", name, b, len(big))
		}
	}
}

// TestNestingLimit: 64 nested commands are explained, 65 are a bad line
// (exit 2, HTTP 413) that says how deep and what to do; NL2Bash's
// deepest nest 4.
func TestNestingLimit(t *testing.T) {
	l := CachedLookup(fixtureLookup(nil))
	for _, shape := range []func(n int) string{
		func(n int) string { return strings.Repeat("$(", n) + "ls" + strings.Repeat(")", n) },
		func(n int) string { return strings.Repeat("cat <(", n) + "ls" + strings.Repeat(")", n) },
		func(n int) string { return strings.Repeat("( ", n) + "ls" + strings.Repeat(" )", n) },
		func(n int) string { return strings.Repeat("{ ", n) + "ls" + strings.Repeat("; }", n) },
		func(n int) string { return strings.Repeat("if true; then ", n) + "ls" + strings.Repeat("; fi", n) },
	} {
		if _, err := Explain(context.Background(), shape(64), l, Options{}); err != nil {
			t.Errorf("%.30s... 64 deep: %v", shape(64), err)
		}
		_, err := Explain(context.Background(), shape(65), l, Options{})
		if !errors.Is(err, ErrBadLine) || !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "nest more than 64 deep") || !strings.Contains(err.Error(), "split the line") {
			t.Errorf("%.30s... 65 deep: %v; want a bad line over the nesting limit", shape(65), err)
		}
	}
	// a pipeline or list of any length is no nesting
	if _, err := Explain(context.Background(), strings.Repeat("ls && ", 5000)+"ls", l, Options{}); err != nil {
		t.Errorf("5000 commands in a list: %v", err)
	}
}

// TestAnswerLimit: a line whose answer would be over MaxAnswer (a cluster
// of 60,000 documented flags, each with its text) is refused before
// anything is encoded, as a line over the limits.
func TestAnswerLimit(t *testing.T) {
	l := CachedLookup(fixtureLookup(nil))
	_, err := Explain(context.Background(), "ls -"+strings.Repeat("l", 60000), l, Options{})
	if !errors.Is(err, ErrTooBig) || !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("60,000 flags: %v; want ErrTooBig", err)
	}
	_, err = Explain(context.Background(), strings.Repeat("a", MaxLine+1), l, Options{})
	if !errors.Is(err, ErrTooBig) {
		t.Errorf("a line over MaxLine: %v; want ErrTooBig", err)
	}
}
