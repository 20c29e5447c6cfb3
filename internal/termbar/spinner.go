package termbar

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// SpinnerDelay is how long a build runs before its spinner shows: one
// that ends sooner is not worth a line that flickers and is gone.
var SpinnerDelay = 300 * time.Millisecond

// spinnerTick is how often the spinner turns.
const spinnerTick = 120 * time.Millisecond

// Spinner is one line on a terminal that turns while something of
// unknown length is built, saying what (firstuse.Notifier's Begin). Builds
// may overlap: the line says the latest still running, and goes when
// the last ends.
type Spinner struct {
	w     io.Writer
	width func() int

	mu      sync.Mutex
	running []*spinJob // oldest first
	stop    chan struct{}
	ticking sync.WaitGroup
}

type spinJob struct{ what string }

// NewSpinner returns a Spinner drawn on w, a terminal whose width in
// columns width reports (0: unknown); the line never grows wider.
func NewSpinner(w io.Writer, width func() int) *Spinner {
	return &Spinner{w: w, width: width}
}

// Begin shows what (after SpinnerDelay, if it still runs) and returns
// the function that says it is done; calling that again does nothing.
func (s *Spinner) Begin(what string) (done func()) {
	job := &spinJob{what: what}
	s.mu.Lock()
	s.running = append(s.running, job)
	if s.stop == nil {
		s.stop = make(chan struct{})
		s.ticking.Add(1)
		go s.turn(s.stop)
	}
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { s.end(job) }) }
}

// end takes job off the line; the last one's end clears it.
func (s *Spinner) end(job *spinJob) {
	s.mu.Lock()
	for i, j := range s.running {
		if j == job {
			s.running = append(s.running[:i], s.running[i+1:]...)
			break
		}
	}
	var stop chan struct{}
	if len(s.running) == 0 && s.stop != nil {
		stop, s.stop = s.stop, nil
	}
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		s.ticking.Wait()
	}
}

// turn draws the line every spinnerTick once SpinnerDelay has passed,
// until stop closes, then clears it.
func (s *Spinner) turn(stop chan struct{}) {
	defer s.ticking.Done()
	select {
	case <-stop:
		return
	case <-time.After(SpinnerDelay):
	}
	cols := func() int {
		if s.width != nil {
			if w := s.width(); w > 0 {
				return w
			}
		}
		return DefaultWidth
	}
	bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(&fitWriter{w: s.w, cols: cols}),
		progressbar.OptionSpinnerType(14), progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(0),
		// no turning of the library's own: its goroutine would outlive
		// the line (an unbounded bar never finishes); each tick below
		// turns it
		progressbar.OptionSetSpinnerChangeInterval(0))
	t := time.NewTicker(spinnerTick)
	defer t.Stop()
	for {
		s.mu.Lock()
		what := ""
		if n := len(s.running); n > 0 {
			what = s.running[n-1].what
		}
		s.mu.Unlock()
		bar.Describe(what + "...")
		_ = bar.Add(1)
		select {
		case <-stop:
			_ = bar.Clear()
			_ = bar.Exit()
			return
		case <-t.C:
		}
	}
}
