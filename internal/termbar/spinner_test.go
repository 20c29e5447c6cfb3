package termbar

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// lockedBuffer is a bytes.Buffer the spinner's goroutine and the test
// may use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestSpinnerSaysTheLatestAndClears(t *testing.T) {
	old := SpinnerDelay
	SpinnerDelay = 0
	t.Cleanup(func() { SpinnerDelay = old })
	var out lockedBuffer
	s := NewSpinner(&out, func() int { return 30 })
	first := s.Begin("building the keyword index")
	time.Sleep(3 * spinnerTick)
	second := s.Begin("embedding command descriptions")
	time.Sleep(3 * spinnerTick)
	second()
	second() // twice: nothing more
	time.Sleep(2 * spinnerTick)
	first()
	got := out.String()
	for _, want := range []string{"building the keyword", "embedding command"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %q", want, got)
		}
	}
	// after the second ended the first is said again
	if strings.LastIndex(got, "building the keyword") < strings.LastIndex(got, "embedding command") {
		t.Errorf("the line did not go back to the build still running: %q", got)
	}
	for _, l := range strings.FieldsFunc(got, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if utf8.RuneCountInString(l) > 29 {
			t.Errorf("a line of %d at 30 columns: %q", len(l), l)
		}
	}
	if i := strings.LastIndex(got, "\r"); i < 0 || strings.TrimSpace(got[strings.LastIndex(got[:i], "\r")+1:]) != "" {
		t.Errorf("the last draw is not a cleared line: %q", got[max(0, len(got)-80):])
	}
	n := len(out.String())
	time.Sleep(2 * spinnerTick)
	if len(out.String()) != n {
		t.Errorf("the spinner went on drawing after its last build ended")
	}
}

func TestSpinnerQuietForAQuickBuild(t *testing.T) {
	var out lockedBuffer
	s := NewSpinner(&out, func() int { return 80 })
	s.Begin("reading the records' vectors")()
	time.Sleep(SpinnerDelay + spinnerTick)
	if out.String() != "" {
		t.Errorf("a build that ended within %s drew %q", SpinnerDelay, out.String())
	}
}
